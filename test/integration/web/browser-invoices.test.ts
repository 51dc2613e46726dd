// The console's invoices as a person uses them: Debian's Chromium driven by playwright-core, against the real app
// listening on a port, as browser.test.ts does (this file keeps to the Invoices section). Screenshots land in
// test/.tmp/screenshots (look at them when the section changes).
import type { Page } from 'playwright-core';
import type { TestStack } from '../../helpers/stack';
import { clickFor, grouped, pick, problemsOf, startBrowserStack, submitLogin, until, type BrowserStack } from '../../helpers/browser';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { aCounterparty, invoicesApi, saveTaxSettings } from '../../helpers/invoices';

let web: BrowserStack;
let stack: TestStack;
beforeAll(async () => {
  web = await startBrowserStack();
  ({ stack } = web);
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

const newPage = () => web.newPage();
const shot = (page: Page, name: string) => web.shot(page, name);

async function logIn(page: Page, user: Registered): Promise<void> {
  await submitLogin(web, page, user);
  await page.waitForSelector('#roles');
}

const form = 'form#invoice-form';
const line = (page: Page, i: number) => page.locator(`${form} tr.invoice-line`).nth(i);

/** The line's net, VAT and gross as the form's preview shows them. */
const previewOf = (page: Page, i: number) => line(page, i).locator('output').allTextContents();
const totals = (page: Page) => Promise.all(['net', 'vat', 'gross'].map((k) => page.textContent(`#invoice-preview-${k}`)));

/** Two invoices drafted, posted and cancelled through the page are many requests: on two shared cores, over a minute. */
const TWO_INVOICES_MS = 180_000;

describe('invoices in the console', () => {
  test('a sale of two lines drafted with its exact preview, saved, posted and its entry opened; a purchase with the supplier\'s number, a field the API refuses, posted and cancelled', async () => {
    const user = await registerWorkspace(stack);
    await saveTaxSettings(stack, user, { taxRegime: 'GENERAL', vatRate: 12 });
    const customer = await aCounterparty(stack, user, { name: 'Chorsu Trade LLC', tin: '301234567', paymentTermsDays: 30 });
    const supplier = await aCounterparty(stack, user, { name: 'Samarkand Supplies', tin: '302222222' });
    const page = await newPage();
    const sent: Array<{ method: string; body: Record<string, unknown> }> = [];
    page.on('request', (req) => {
      // The bodies sent (a posting sends none).
      if (new URL(req.url()).pathname.startsWith('/api/v1/invoices/') && req.postData()) sent.push({ method: req.method(), body: req.postDataJSON() as Record<string, unknown> });
    });
    await logIn(page, user);
    await page.click('nav.tabs a[href="#invoices"]');
    await page.waitForSelector('#invoice-list p:text-is("No invoices yet.")');

    // A sale: the number is the API's to give, the revenue account 9020 is filled in, the company's 12 % applies.
    await page.click('#new-invoice');
    await page.waitForSelector(form);
    expect(await page.inputValue(`${form} select[name=kind]`)).toBe('SALES');
    expect(await page.isHidden(`${form} [data-field=number]`)).toBe(true);
    await page.fill(`${form} input[name=date]`, '2026-03-10');
    await pick(page.locator(`${form} input[data-picker=counterpartyId]`), '301234567', /^Chorsu Trade LLC$/);
    await page.fill('#invoice-description', 'Yarn for March');
    expect(await line(page, 0).locator('input[data-picker=account]').inputValue()).toBe('9020 Revenue from sales of goods');
    expect(await line(page, 0).locator('select[name=vatChoice] option:checked').textContent()).toBe('Company 12 %');
    await line(page, 0).locator('input[name=description]').fill('Cotton yarn 30/1');
    await line(page, 0).locator('input[name=quantity]').fill('2');
    await line(page, 0).locator('input[name=unitPrice]').fill('1250.50');
    expect(await previewOf(page, 0)).toEqual([grouped('2501.00'), '300.12', grouped('2801.12')]);

    // A second line: a service on 9030, exempt, a price of four decimals whose product rounds half-up (499.99995).
    await page.click('#add-invoice-line');
    expect(await line(page, 1).locator('input[data-picker=account]').inputValue()).toBe('9020 Revenue from sales of goods');
    await line(page, 1).locator('input[name=description]').fill('Delivery to Tashkent');
    await line(page, 1).locator('input[name=catalogCode]').fill('10112001001000000');
    await line(page, 1).locator('input[name=quantity]').fill('1.5');
    await line(page, 1).locator('input[name=unitPrice]').fill('333.3333');
    await line(page, 1).locator('select[name=vatChoice]').selectOption('exempt');
    await pick(line(page, 1).locator('input[data-picker=account]'), '9030', /^9030 /);
    expect(await previewOf(page, 1)).toEqual(['500.00', '0.00', '500.00']);
    expect(await totals(page)).toEqual([grouped('3001.00'), '300.12', grouped('3301.12')]);
    expect(await page.textContent('#invoice-preview-note')).toContain('the saved invoice shows the API\'s amounts');
    // The typed price is shown grouped once left.
    await line(page, 0).locator('input[name=unitPrice]').press('Tab');
    await shot(page, '40-invoice-form');

    const created = await clickFor(page, `${form} button[type=submit]`, 'POST', /\/api\/v1\/invoices\/[^/]+$/);
    expect(created.status).toBe(201);
    await page.waitForSelector('#invoice-status[data-status=DRAFT]');
    expect(await page.textContent('h1#invoice-title')).toBe('Sales invoice (draft) Draft');
    // The card shows the API's amounts, which are the preview's.
    expect(await Promise.all(['net', 'vat', 'gross'].map((k) => page.textContent(`#invoice-total-${k}`)))).toEqual([grouped('3001.00'), '300.12', grouped('3301.12')]);
    expect(created.body).toMatchObject({ totalNet: '3001.00', totalVat: '300.12', totalGross: '3301.12', dueDate: '2026-04-09', number: null });
    expect(sent[0]).toEqual({
      method: 'POST',
      body: {
        kind: 'SALES', date: '2026-03-10', counterpartyId: customer, currency: 'UZS', description: 'Yarn for March',
        lines: [
          { description: 'Cotton yarn 30/1', quantity: '2', unitPrice: '1250.50', account: '9020' },
          { description: 'Delivery to Tashkent', quantity: '1.5', unitPrice: '333.3333', account: '9030', vatRate: null, catalogCode: '10112001001000000' },
        ],
      },
    });

    // Posted: numbered in the company's series of the year, the entry one click away.
    const posted = await clickFor(page, '#post-invoice', 'POST', /\/posting$/);
    expect(posted.status).toBe(200);
    await page.waitForSelector('#invoice-status[data-status=POSTED]');
    expect(await page.textContent('h1#invoice-title')).toBe('Sales invoice 2026-000001 Posted');
    expect(await page.textContent('#alert')).toBe('Posted Sales invoice 2026-000001 into the journal.');
    expect(await page.textContent('#invoice-outstanding')).toBe(`${grouped('3301.12')} UZS`);
    expect(await page.locator('#post-invoice, #edit-invoice, #delete-invoice').count()).toBe(0);
    await shot(page, '41-invoice-card');
    await page.click('#invoice-entry');
    await page.waitForSelector('h1:text-matches("^Entry 1: ")');
    const entryLines = await page.locator('tr[data-line]').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    expect(entryLines.map((cells) => [cells[1], cells[3], cells[4]])).toEqual(expect.arrayContaining([
      ['4010', grouped('3301.12'), '0.00'], ['9020', '0.00', grouped('2501.00')], ['9030', '0.00', '500.00'], ['6410', '0.00', '300.12'],
    ]));
    expect(entryLines).toHaveLength(4);
    await page.click('button:text-is("← Back to the invoice")');
    await page.waitForSelector('#invoice-status[data-status=POSTED]');

    // A purchase: the supplier's number; an account the chart lacks is refused at its line's field.
    await page.click('button:text-is("← All invoices")');
    await page.waitForSelector('#invoice-list tr[data-status=POSTED]');
    await page.click('#new-invoice');
    await page.waitForSelector(form);
    await page.selectOption(`${form} select[name=kind]`, 'PURCHASE');
    expect(await page.isVisible(`${form} input[name=number]`)).toBe(true);
    expect(await line(page, 0).locator('input[data-picker=account]').inputValue()).toBe('');
    await page.fill(`${form} input[name=number]`, 'SS-0042');
    await page.fill(`${form} input[name=date]`, '2026-03-12');
    await pick(page.locator(`${form} input[data-picker=counterpartyId]`), 'Samarkand', /^Samarkand Supplies$/);
    await line(page, 0).locator('input[name=description]').fill('Steel sheets');
    await line(page, 0).locator('input[name=quantity]').fill('10');
    await line(page, 0).locator('input[name=unitPrice]').fill('125 000');
    await line(page, 0).locator('input[data-picker=account]').fill('1999'); // four digits stand as typed, for the API to check
    expect(await previewOf(page, 0)).toEqual([grouped('1250000.00'), grouped('150000.00'), grouped('1400000.00')]);
    const refused = await clickFor(page, `${form} button[type=submit]`, 'POST', /\/api\/v1\/invoices\/[^/]+$/);
    expect(refused.status).toBe(400);
    await page.waitForSelector('#invoice-line-1-account-error:not([hidden])');
    expect(await page.textContent('#invoice-line-1-account-error')).toContain('1999');
    expect(await line(page, 0).locator('input[data-picker=account]').getAttribute('aria-invalid')).toBe('true');
    // The focus is back in the box, whose list offers nothing for 1999; left, the problem shows under it.
    await page.focus('h1');
    expect(await page.textContent('#invoice-line-1-account-error')).toContain('1999');
    await shot(page, '43-invoice-form-refused');
    await pick(line(page, 0).locator('input[data-picker=account]'), '1010', /^1010 Raw materials/);
    await page.waitForSelector('#invoice-line-1-account-error', { state: 'hidden' });
    const purchase = await clickFor(page, `${form} button[type=submit]`, 'POST', /\/api\/v1\/invoices\/[^/]+$/);
    expect(purchase.status).toBe(201);
    await page.waitForSelector('#invoice-status[data-status=DRAFT]');
    expect(await page.textContent('h1#invoice-title')).toBe('Purchase invoice SS-0042 Draft');
    expect(sent.at(-1)!.body).toMatchObject({ kind: 'PURCHASE', number: 'SS-0042', counterpartyId: supplier, lines: [{ quantity: '10', unitPrice: '125000', account: '1010' }] });
    const purchaseId = purchase.body.id as string;

    // An edit of the draft someone else saved meanwhile: refused as stale, read again, then saved at its version.
    await invoicesApi(stack, user).update(purchaseId, {
      number: 'SS-0042', date: '2026-03-12', counterpartyId: supplier, description: 'Changed elsewhere',
      lines: [{ description: 'Steel sheets', quantity: '10', unitPrice: '125000', account: '1010' }], expectedVersion: 1,
    }).expect(200);
    await page.click('#edit-invoice');
    await page.waitForSelector(form);
    expect(await page.isDisabled(`${form} select[name=kind]`)).toBe(true);
    expect(await line(page, 0).locator('input[data-picker=account]').inputValue()).toBe('1010 Raw materials and supplies');
    await line(page, 0).locator('input[name=quantity]').fill('12');
    expect((await clickFor(page, `${form} button[type=submit]`, 'PUT', /\/api\/v1\/invoices\/[^/]+\/[^/]+$/)).status).toBe(409);
    await page.waitForSelector('#invoice-form-notice .stale');
    expect(await page.textContent('#alert')).toContain('someone else saved this draft after you opened it');
    await shot(page, '45-invoice-edit-stale');
    await page.click('#invoice-form-notice button:text-is("Reload the draft")');
    expect(await until(() => page.inputValue('#invoice-description'), (text) => text === 'Changed elsewhere')).toBe('Changed elsewhere');
    expect(await line(page, 0).locator('input[name=quantity]').inputValue()).toBe('10');
    await line(page, 0).locator('input[name=quantity]').fill('12');
    expect(await totals(page)).toEqual([grouped('1500000.00'), grouped('180000.00'), grouped('1680000.00')]);
    expect((await clickFor(page, `${form} button[type=submit]`, 'PUT', /\/api\/v1\/invoices\/[^/]+\/[^/]+$/)).status).toBe(200);
    await page.waitForSelector('#invoice-status[data-status=DRAFT]');
    expect(sent.at(-1)).toMatchObject({ method: 'PUT', body: { expectedVersion: 2, description: 'Changed elsewhere', lines: [{ quantity: '12' }] } });
    expect(sent.at(-1)!.body).not.toHaveProperty('kind');
    expect(await page.textContent('#invoice-total-gross')).toBe(grouped('1680000.00'));
    expect((await clickFor(page, '#post-invoice', 'POST', /\/posting$/)).status).toBe(200);
    await page.waitForSelector('#invoice-status[data-status=POSTED]');
    expect(await page.textContent('h1#invoice-title')).toBe('Purchase invoice SS-0042 Posted');

    // The list: amounts with their currency, status badges, filters.
    await page.click('button:text-is("← All invoices")');
    const numbers = () => page.locator('#invoice-list tr[data-id] td.number').allTextContents();
    const numbersBecome = async (expected: string[]) => expect(await until(numbers, (shown) => shown.join('|') === expected.join('|'))).toEqual(expected);
    await numbersBecome(['SS-0042', '2026-000001']);
    expect(await page.locator('#invoice-list tr[data-id] td.total').allTextContents()).toEqual([`${grouped('1680000.00')} UZS`, `${grouped('3301.12')} UZS`]);
    expect(await page.locator('#invoice-list tr[data-id] .badge').allTextContents()).toEqual(['Posted', 'Posted']);
    await shot(page, '42-invoices-list');
    await page.selectOption('#invoice-filters select[name=kind]', 'PURCHASE');
    await numbersBecome(['SS-0042']);
    await page.selectOption('#invoice-filters select[name=kind]', '');
    await numbersBecome(['SS-0042', '2026-000001']);
    await page.fill('#invoice-filters input[name=q]', '2026-');
    await numbersBecome(['2026-000001']);
    await page.fill('#invoice-filters input[name=q]', '');
    await numbersBecome(['SS-0042', '2026-000001']);
    await pick(page.locator('#invoice-filters input[data-picker=counterpartyId]'), 'Samarkand', /^Samarkand Supplies$/);
    await numbersBecome(['SS-0042']);

    // The purchase cancelled: a date and a reason, a fresh requestId; its entry reversed.
    await page.click('#invoice-list tr[data-id] button[data-action=open]');
    await page.waitForSelector('#open-cancel');
    await page.click('#open-cancel');
    await page.fill('form#cancel-invoice input[name=date]', '2026-03-20');
    await page.fill('form#cancel-invoice input[name=reason]', 'Delivered to the wrong warehouse');
    expect((await clickFor(page, 'form#cancel-invoice button[type=submit]', 'POST', /\/cancellation$/)).status).toBe(200);
    await page.waitForSelector('#invoice-status[data-status=CANCELLED]');
    const cancellation = sent.at(-1)!.body;
    expect(cancellation).toEqual({ requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), date: '2026-03-20', reason: 'Delivered to the wrong warehouse' });
    expect(await page.textContent('#invoice-reversal')).toMatch(/^Entry \d+$/);
    await shot(page, '44-invoice-cancelled');
    const invoices = (await api(stack).get(`/api/v1/invoices/${user.me.company.id}`).set(...bearer(user.accessToken)).expect(200)).body.items as Array<{ number: string; status: string }>;
    expect(invoices.map((i) => [i.number, i.status])).toEqual([['SS-0042', 'CANCELLED'], ['2026-000001', 'POSTED']]);

    // A draft deleted from its card, after a second thought.
    const draft = (await invoicesApi(stack, user).create({ kind: 'SALES', date: '2026-03-25', counterpartyId: customer, lines: [{ description: 'Samples', quantity: '1', unitPrice: '10' }] }).expect(201)).body as { id: string };
    await page.click('button:text-is("← All invoices")');
    // The list is as it was left, filtered on the supplier: emptied, the filter goes.
    expect(await page.inputValue('#invoice-filters input[data-picker=counterpartyId]')).toBe('Samarkand Supplies');
    await page.fill('#invoice-filters input[data-picker=counterpartyId]', '');
    await page.selectOption('#invoice-filters select[name=status]', 'DRAFT');
    await page.click(`#invoice-list tr[data-id="${draft.id}"] button[data-action=open]`);
    await page.click('#delete-invoice');
    await page.click('#invoice-actions button:text-is("Keep it")');
    expect(await page.isVisible('#confirm-delete')).toBe(false);
    await page.click('#delete-invoice');
    await page.click('#confirm-delete');
    await page.waitForSelector('#invoice-list p:text-is("No invoice matches these filters.")');
    expect(await page.textContent('#alert')).toBe('Deleted the draft sales invoice of Chorsu Trade LLC.');
    await invoicesApi(stack, user).get(draft.id).expect(404);
    expect(problemsOf(page)).toEqual([]);
  }, TWO_INVOICES_MS);
});
