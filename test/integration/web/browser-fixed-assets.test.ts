// The console's Fixed assets section, with its own stack: an asset refused on the page, then registered as a
// draft; its card with the schedule previewed; put in service; a period close charging it (the card and the
// register at a date showing it, tied to the ledger and to Form 1); disposed of, with links to both entries.
// Screenshots land in test/.tmp/screenshots (look at them when the section changes).
import type { Page } from 'playwright-core';
import type { TestStack } from '../../helpers/stack';
import { clickFor, grouped, pick, problemsOf, startBrowserStack, submitLogin, until, type BrowserStack } from '../../helpers/browser';
import { registerWorkspace } from '../../helpers/clients';
import { ledgerApi, waitForClose } from '../../helpers/ledger';

let web: BrowserStack;
let stack: TestStack;
beforeAll(async () => {
  web = await startBrowserStack();
  ({ stack } = web);
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

const shot = (page: Page, name: string) => web.shot(page, name);
const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').replace(/[ \t\n]+/g, ' ').trim();

describe('the fixed assets section in the console', () => {
  test('an asset refused on the page, registered, previewed, put in service, charged by a close, tied in the register, disposed of', async () => {
    const user = await registerWorkspace(stack);
    const page = await web.newPage();
    const sent: unknown[] = [];
    page.on('request', (req) => {
      if (['POST', 'PUT'].includes(req.method()) && new URL(req.url()).pathname.startsWith('/api/v1/fixed-assets/')) sent.push(req.postDataJSON());
    });
    await submitLogin(web, page, user);
    await page.waitForSelector('#roles');
    await page.click('nav.tabs a[href="#fixed-assets"]');
    await page.waitForSelector('#fixed-asset-list p:text-is("No fixed assets yet.")');

    // Nothing typed: refused on the page, nothing sent.
    await page.click('#new-fixed-asset');
    await page.click('#fixed-asset-form button[type=submit]');
    await page.waitForSelector('#fixed-asset-inventoryNumber-error:not([hidden])');
    expect(await page.textContent('#fixed-asset-usefulLifeMonths-error')).toBe('The useful life is a whole number of months, e.g. 60.');
    expect(sent).toEqual([]);
    // A salvage value above the cost: refused by the API at its field.
    await page.fill('#fixed-asset-form input[name=inventoryNumber]', 'IT-001');
    await page.fill('#fixed-asset-form input[name=name]', 'Laptop');
    await until(() => page.locator('#fixed-asset-form select[name=assetAccount] option').count(), (n) => n > 1);
    await page.selectOption('#fixed-asset-form select[name=assetAccount]', '0150');
    await page.fill('#fixed-asset-form input[name=cost]', '12000000');
    await page.fill('#fixed-asset-form input[name=salvageValue]', '13000000');
    await page.fill('#fixed-asset-form input[name=usefulLifeMonths]', '60');
    const refused = await clickFor(page, '#fixed-asset-form button[type=submit]', 'POST', /\/fixed-assets\/[^/]+$/);
    expect(refused.status).toBe(400);
    await page.waitForSelector('#fixed-asset-salvageValue-error:not([hidden])');
    expect(await page.getAttribute('#fixed-asset-form input[name=salvageValue]', 'aria-invalid')).toBe('true');
    await page.fill('#fixed-asset-form input[name=salvageValue]', '');
    // Charged to selling expenses, chosen from the chart.
    await pick(page.locator('#fixed-asset-form [data-field=expenseAccount] input[role=combobox]'), '9410', /^9410 /);
    const created = await clickFor(page, '#fixed-asset-form button[type=submit]', 'POST', /\/fixed-assets\/[^/]+$/);
    expect(created.status).toBe(201);
    expect(sent.at(-1)).toEqual({ inventoryNumber: 'IT-001', name: 'Laptop', assetAccount: '0150', cost: '12000000', usefulLifeMonths: 60, expenseAccount: '9410' });
    expect(await page.textContent('#alert')).toBe('Registered IT-001 Laptop as a draft: open it to put it in service.');
    await page.waitForSelector('#fixed-asset-list tr[data-id]');
    expect(await text(page, '#fixed-asset-list tr[data-id] .tag')).toBe('draft');

    // The card: a draft's schedule is a preview, 60 months of 200 000.00.
    await page.click('#fixed-asset-list button[data-action=open]');
    await page.waitForSelector('#fixed-asset-schedule tbody tr');
    expect(await page.locator('#fixed-asset-schedule tbody tr').count()).toBe(60);
    expect(await text(page, '#fixed-asset-schedule tbody tr:first-child td:nth-child(2)')).toBe(`${grouped('200000.00')} UZS`);
    await page.fill('#commission-form input[name=date]', '2026-01-31');
    expect((await clickFor(page, '#commission-form button[type=submit]', 'POST', /\/commissioning$/)).status).toBe(200);
    expect(sent.at(-1)).toEqual({ date: '2026-01-31', expectedVersion: 1 });
    await page.waitForSelector('#commissioning-entry');
    expect(await text(page, '#fixed-asset-facts .tag')).toBe('in service');
    expect(await text(page, '#fixed-asset-facts dd:nth-of-type(2)')).toBe('0150 · depreciation 0250 · expense 9410');
    expect(await page.locator('#fixed-asset-schedule tbody tr:first-child td:first-child').textContent()).toBe('2026-02');

    // A close of the quarter charges February and March; the card, drawn again, shows them.
    const ledger = ledgerApi(stack, user);
    expect((await waitForClose(ledger, (await ledger.close('2026-03-31').expect(202)).body.id)).status).toBe('COMPLETED');
    await page.click('#fixed-asset-back');
    await page.click('#fixed-asset-list button[data-action=open]');
    await page.waitForSelector('#fixed-asset-accumulated');
    expect(await text(page, '#fixed-asset-accumulated')).toBe(`${grouped('400000.00')} UZS through 2026-03`);
    expect(await page.locator('#fixed-asset-schedule tr.charged').count()).toBe(2);
    await shot(page, '80-fixed-asset-card');

    // Disposed of in April: the disposal's entry linked from the card, and opened from it.
    await page.fill('#dispose-form input[name=date]', '2026-04-10');
    expect((await clickFor(page, '#dispose-form button[type=submit]', 'POST', /\/disposal$/)).status).toBe(200);
    expect(sent.at(-1)).toEqual({ date: '2026-04-10', disposalAccount: '9210', expectedVersion: 3 });
    await page.waitForSelector('#disposal-entry');
    expect(await text(page, '#fixed-asset-facts .tag')).toBe('disposed of');
    expect(await text(page, '#fixed-asset-nbv')).toBe(`${grouped('11400000.00')} UZS`);
    await page.click('#disposal-entry');
    await page.waitForSelector('button:text-is("← Back to IT-001")');
    await page.click('button:text-is("← Back to IT-001")');
    await page.waitForSelector('#fixed-asset-facts');
    await page.click('#fixed-asset-back');

    // The register at the quarter's end: the laptop on the books, tied to the ledger and to Form 1.
    await page.waitForSelector('#register-ties');
    await page.fill('#fixed-asset-register input[name=asOf]', '2026-03-31');
    await page.dispatchEvent('#fixed-asset-register input[name=asOf]', 'change');
    const cells = (n: number) => page.locator(`#fixed-asset-register tbody tr:nth-child(${n}) > *`).allTextContents();
    expect(await until(() => cells(1), (t) => t[0] === 'Register (1 asset)')).toEqual(['Register (1 asset)', ...['12000000.00', '400000.00', '11600000.00'].map((a) => `${grouped(a)} UZS`)]);
    expect((await cells(2)).slice(1)).toEqual((await cells(1)).slice(1));
    expect((await cells(3)).slice(1)).toEqual((await cells(1)).slice(1));
    expect(await text(page, '#register-ties')).toBe('Ties to the ledger and to the balance sheet.');
    await shot(page, '81-fixed-assets');
    expect(problemsOf(page)).toEqual([]);
  }, 120_000);
});
