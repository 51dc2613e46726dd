// The console's Bank section as an accountant uses it: Debian's Chromium driven by playwright-core, against the real
// app listening on a port with its worker (test/helpers/browser.ts), as browser-invoices.test.ts does. A bank account
// added, November's 1C statement (Windows-1251) imported, its proposed line confirmed and unmatched, a line matched
// to the invoice chosen, another taken as an advance, and a statement that does not add up refused with its
// difference. Screenshots land in test/.tmp/screenshots (look at them when the section changes).
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { TestStack } from '../../helpers/stack';
import { clickFor, grouped, pick, problemsOf, startBrowserStack, submitLogin, until, type BrowserStack } from '../../helpers/browser';
import { registerWorkspace } from '../../helpers/clients';
import { aCounterparty, invoicesApi, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { paymentsApi } from '../../helpers/payments';
import { bankStatementsApi } from '../../helpers/bank-statements';
import { statement } from '../../unit/bank-statements/fixture';
import { renderOneC } from '../../unit/bank-statements/render';

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

/** An account added, two statements imported and four lines matched and unmatched through the page: on two shared cores, minutes. */
const BANK_DAY_MS = 240_000;

const [received, paid] = [statement.lines[0]!, statement.lines[1]!];
const lines = '#bank-lines table.bank-lines';
/** The row of the line of `amount` (the two fees are alike: the first of them). */
const row = (page: Page, amount: string) => page.locator(`${lines} tr[data-id]`).filter({ has: page.locator(`td.num:text-is("${grouped(amount)}")`) }).first();
const statusOf = (page: Page, amount: string) => row(page, amount).getAttribute('data-status');
const statusBecomes = async (page: Page, amount: string, status: string) => expect(await until(() => statusOf(page, amount), (s) => s === status)).toBe(status);

describe('the bank section in the console', () => {
  test('an account added, a 1C statement imported with its counts, the proposed line confirmed, unmatched, matched to a chosen invoice; a line taken as an advance; an unbalanced statement refused with its difference', async () => {
    const user = await registerWorkspace(stack);
    await saveTaxSettings(stack, user);
    const customer = await aCounterparty(stack, user, { name: 'Тошкент Савдо', tin: received.counterpartyTin });
    const landlord = await aCounterparty(stack, user, { name: 'Ўзбекистон Ижара', tin: paid.counterpartyTin });
    const invoices = invoicesApi(stack, user);
    const draft = (await invoices.create({ ...salesBody(customer, '2026-11-01'), lines: [{ description: 'Goods', quantity: '1', unitPrice: '4500000.00', vatRate: null }] }).expect(201)).body as { id: string };
    const sale = (await invoices.post(draft.id).expect(200)).body as { id: string; number: string };
    const invoiceOf = async () => (await invoices.get(sale.id).expect(200)).body as { status: string; outstanding: string };

    const page = await web.newPage();
    const sent: Array<{ path: string; contentType: string | undefined; body: unknown }> = [];
    page.on('request', (req) => {
      const path = new URL(req.url()).pathname;
      if (req.method() === 'POST' && path.startsWith('/api/v1/bank-accounts/')) {
        const json = req.headers()['content-type'] === 'application/json';
        sent.push({ path, contentType: req.headers()['content-type'], body: json ? req.postDataJSON() : null });
      }
    });
    await submitLogin(web, page, user);
    await page.waitForSelector('#roles');
    await page.click('nav.tabs a[href="#bank"]');
    await page.waitForSelector('#bank-account-list p:text-matches("^No bank accounts yet")');

    // The account: its GL account a header first, which the API refuses at the field; then 5110.
    await page.click('#new-bank-account');
    await page.fill('#bank-account-form input[name=bankCode]', statement.bankCode);
    await page.fill('#bank-account-form input[name=accountNumber]', statement.accountNumber);
    await page.fill('#bank-account-form input[name=name]', 'Kapitalbank UZS');
    await page.fill('#bank-account-form input[data-picker=accountCode]', '5100');
    const header = await clickFor(page, '#bank-account-form button[type=submit]', 'POST', /\/api\/v1\/bank-accounts\/[^/]+$/);
    expect(header.status).toBe(400);
    expect(header.body.type).toBe('/problems/header-account');
    await page.waitForSelector('#bank-account-accountCode-error:not([hidden])');
    expect(await page.getAttribute('#bank-account-form input[data-picker=accountCode]', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#bank-account-accountCode-error')).toContain('5100 is a header account');
    await shot(page, '60-bank-account-refused');
    await pick(page.locator('#bank-account-form input[data-picker=accountCode]'), '5110', /^5110 /);
    const created = await clickFor(page, '#bank-account-form button[type=submit]', 'POST', /\/api\/v1\/bank-accounts\/[^/]+$/);
    expect(created.status).toBe(201);
    expect(sent.at(-1)!.body).toEqual({ bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS', currency: 'UZS', accountCode: '5110' });
    await page.waitForSelector('#bank-account-list tr[data-id]');
    expect(await page.locator('#bank-account-list tr[data-id] td').allTextContents()).toEqual(['Kapitalbank UZS', statement.bankCode, statement.accountNumber, 'UZS', '5110']);
    expect(await page.textContent('#alert')).toContain('Added Kapitalbank UZS');
    await shot(page, '61-bank-accounts');
    const accountId = created.body.id as string;
    const statements = bankStatementsApi(stack, user, accountId);

    // The statement as the bank's client exports it: 1C exchange text in Windows-1251, sent as its bytes.
    await page.click('#bank-account-list button[data-action=open]');
    await page.waitForSelector('#bank-lines p:text-is("No lines yet: import the account’s statement.")');
    const november = renderOneC(statement);
    await page.setInputFiles('#bank-statement-file', { name: 'kapitalbank-2026-11.txt', mimeType: 'text/plain', buffer: november });
    const imported = await clickFor(page, '#bank-import-form button[type=submit]', 'POST', /\/statements$/);
    expect(imported.status).toBe(202);
    expect(sent.at(-1)!.contentType).toBe('text/plain');
    // The bytes as the file has them, not text decoded and encoded again.
    expect(imported.body).toMatchObject({ status: 'RUNNING', byteSize: november.length, sha256: createHash('sha256').update(november).digest('hex') });
    await page.waitForSelector('#bank-import-status[data-status=COMPLETED]', { timeout: 60_000 });
    const counts = await page.locator('#bank-import-counts div').evaluateAll((items) => items.map((d) => [d.getAttribute('data-count'), d.querySelector('dd')?.textContent]));
    expect(counts).toEqual([['read', '4'], ['new', '4'], ['duplicate', '0'], ['proposed', '1'], ['matched', '0'], ['unmatched', '3']]);
    expect(await page.textContent('#bank-import')).toContain('1C client-bank exchange · 2026-11-01 to 2026-11-30');

    // The lines: the customer's payment PROPOSED with its invoice and why; the rent and the two fees unmatched.
    await page.waitForSelector(`${lines} tr[data-id]`);
    expect(await page.locator(`${lines} tr[data-id]`).evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-status'), r.querySelector('td.date')?.textContent, r.querySelector('td.in')?.textContent, r.querySelector('td.out')?.textContent])))
      .toEqual([['PROPOSED', '2026-11-03', grouped('4500000.00'), ''], ['UNMATCHED', '2026-11-05', '', grouped('1200000.50')], ['UNMATCHED', '2026-11-20', '', grouped('5000.00')], ['UNMATCHED', '2026-11-20', '', grouped('5000.00')]]);
    expect(await row(page, '4500000.00').locator('td.counterparty').textContent()).toBe(`ООО «Тошкент Савдо»TIN ${received.counterpartyTin}`);
    expect(await row(page, '4500000.00').locator('.badge').textContent()).toBe('Proposed');
    expect(await row(page, '4500000.00').locator('.proposal-invoice').textContent()).toBe(`Invoice ${sale.number}`);
    expect(await row(page, '4500000.00').locator('.reason').textContent()).toContain(`TIN ${received.counterpartyTin} and the amount match the one open invoice`);
    expect(await page.textContent('#bank-lines-page')).toBe('Page 1 of 1 · 4 lines');
    await shot(page, '62-bank-statement-imported');

    // Confirmed: the payment posts, the invoice is PAID, the line MATCHED with its payment one click away.
    const confirmed = await clickFor(page, `${lines} tr[data-status=PROPOSED] button[data-action=confirm]`, 'POST', /\/match$/);
    expect(confirmed.status).toBe(200);
    expect(sent.at(-1)!.body).toEqual({ acceptProposal: true });
    await statusBecomes(page, '4500000.00', 'MATCHED');
    expect(await page.textContent('#alert')).toBe(`Confirmed: the payment of the line received ${grouped('4500000.00')} UZS on 2026-11-03 is posted, settling invoice ${sale.number}.`);
    expect(await invoiceOf()).toMatchObject({ status: 'PAID', outstanding: '0.00' });
    expect(await row(page, '4500000.00').locator('.badge').textContent()).toBe('Matched');
    expect(await row(page, '4500000.00').locator('.match button').allTextContents()).toEqual(['Open the payment']);
    await shot(page, '63-bank-line-matched');
    await row(page, '4500000.00').locator('button[data-action=open-payment]').click();
    await page.waitForSelector('#payment-status[data-status=POSTED]');
    expect(await page.textContent('#payment-allocated')).toBe(`${grouped('4500000.00')} UZS`);
    await page.click('button:text-is("← Back to Kapitalbank UZS")');
    await page.waitForSelector(`${lines} tr[data-status=MATCHED]`);

    // Unmatched, asked twice: the payment is cancelled and the invoice open again; the line PROPOSED again.
    await row(page, '4500000.00').locator('button[data-action=unmatch]').click();
    await page.waitForSelector(`${lines} button[data-action=confirm-unmatch]:visible`);
    expect((await clickFor(page, `${lines} button[data-action=confirm-unmatch]`, 'POST', /\/unmatch$/)).status).toBe(200);
    await statusBecomes(page, '4500000.00', 'PROPOSED');
    expect(await page.textContent('#alert')).toContain('Unmatched: the payment of the line');
    expect(await invoiceOf()).toMatchObject({ status: 'POSTED', outstanding: '4500000.00' });

    // Confirmed by someone else meanwhile: the 409 is said in words and the lines show the line as it is now.
    const lineId = (await row(page, '4500000.00').getAttribute('data-id'))!;
    await statements.match(lineId, { acceptProposal: true }).expect(200);
    const late = await clickFor(page, `${lines} tr[data-status=PROPOSED] button[data-action=confirm]`, 'POST', /\/match$/);
    expect(late.status).toBe(409);
    expect(late.body.type).toBe('/problems/bank-line-matched');
    await statusBecomes(page, '4500000.00', 'MATCHED');
    expect(await page.textContent('#alert')).toBe('Not confirmed: the line is matched already, by someone else meanwhile. The lines are read again: unmatch it first to match it otherwise.');
    await shot(page, '64-bank-line-matched-meanwhile');
    await row(page, '4500000.00').locator('button[data-action=unmatch]').click();
    expect((await clickFor(page, `${lines} button[data-action=confirm-unmatch]`, 'POST', /\/unmatch$/)).status).toBe(200);
    await statusBecomes(page, '4500000.00', 'PROPOSED');

    // Invoices chosen: the proposal's customer and invoice are filled in; 4 000 000.00 to it leaves 500 000.00 an advance.
    await row(page, '4500000.00').locator('button[data-action=choose]').click();
    await page.waitForSelector('#bank-match-form');
    expect(await until(() => page.inputValue('#bank-match-form input[data-picker=counterpartyId]'), (v) => v !== '')).toBe('Тошкент Савдо');
    const amountBox = page.locator(`#bank-match-form input.allocation-amount[data-invoice="${sale.id}"]`);
    expect(await until(() => amountBox.inputValue(), (v) => v !== '')).toBe(grouped('4500000.00'));
    expect(await page.locator('#bank-match-allocation input[type=radio]').evaluateAll((radios) => radios.map((r) => r.getAttribute('value')))).toEqual(['CHOSEN', 'NONE']);
    await amountBox.fill('4 000 000');
    expect(await page.textContent('#bank-match-unallocated')).toBe(`Allocated ${grouped('4000000.00')} UZS · unallocated ${grouped('500000.00')} UZS (held as an advance)`);
    await shot(page, '65-bank-match-form');
    expect((await clickFor(page, '#bank-match-form button[type=submit]', 'POST', /\/match$/)).status).toBe(200);
    expect(sent.at(-1)!.body).toEqual({ allocations: [{ invoiceId: sale.id, amount: '4000000' }] });
    await statusBecomes(page, '4500000.00', 'MATCHED');
    expect(await page.textContent('#alert')).toBe(`Matched the line received ${grouped('4500000.00')} UZS on 2026-11-03: its payment is posted, ${grouped('4000000.00')} UZS allocated to 1 invoice, ${grouped('500000.00')} UZS held as an advance.`);
    expect(await invoiceOf()).toMatchObject({ status: 'POSTED', outstanding: '500000.00' });

    // The rent: no open purchase invoice, the landlord found by the line's TIN; nothing typed is refused on the page,
    // then the whole line is an advance paid to the landlord.
    await row(page, '1200000.50').locator('button[data-action=choose]').click();
    await page.waitForSelector('#bank-match-form');
    expect(await until(() => page.inputValue('#bank-match-form input[data-picker=counterpartyId]'), (v) => v !== '')).toBe('Ўзбекистон Ижара');
    await page.waitForSelector('#bank-match-open-note:text-matches("^No open purchase invoice")');
    await page.click('#bank-match-form button[type=submit]');
    await page.waitForSelector('#bank-match-allocations-error:not([hidden])');
    expect(await page.textContent('#bank-match-allocations-error')).toBe('Type what at least one invoice takes, or choose “None: an advance”.');
    await page.check('#bank-match-allocation input[value=NONE]');
    expect((await clickFor(page, '#bank-match-form button[type=submit]', 'POST', /\/match$/)).status).toBe(200);
    expect(sent.at(-1)!.body).toEqual({ counterpartyId: landlord, allocations: [] });
    await statusBecomes(page, '1200000.50', 'MATCHED');
    const advance = (await statements.lines({ status: 'MATCHED' }).expect(200)).body.items.find((l: { amount: string }) => l.amount === '1200000.50') as { paymentId: string };
    expect((await paymentsApi(stack, user).get(advance.paymentId).expect(200)).body).toMatchObject({ direction: 'OUT', counterpartyId: landlord, allocated: '0.00', unallocated: '1200000.50', cashAccount: '5110' });

    // Filtered on status: the two fees are all that is left to match.
    await page.selectOption('#bank-line-filters select[name=status]', 'UNMATCHED');
    expect(await until(() => page.locator(`${lines} tr[data-id]`).count(), (n) => n === 2)).toBe(2);
    await page.selectOption('#bank-line-filters select[name=status]', '');
    expect(await until(() => page.locator(`${lines} tr[data-id]`).count(), (n) => n === 4)).toBe(4);

    // A fee posted straight to an expense account: its own entry, Dr 9430 / Cr 5110 on the line's date.
    const fee = row(page, '5000.00');
    await fee.locator('button[data-action=open-post-to-account]').click();
    await fee.locator('span.post-to-account input').fill('9430');
    expect((await clickFor(page, `${lines} span.post-to-account:not([hidden]) button[data-action=post-to-account]`, 'POST', /\/match$/)).status).toBe(200);
    expect(sent.at(-1)!.body).toEqual({ accountCode: '9430' });
    await page.waitForSelector(`${lines} span.entry-posted`);
    expect(await page.textContent('#alert')).toBe(`Posted: the line paid ${grouped('5000.00')} UZS on 2026-11-20 is posted to account 9430.`);
    const posted = (await statements.lines({ status: 'MATCHED' }).expect(200)).body.items.find((l: { amount: string }) => l.amount === '5000.00') as { entryId: string };
    expect(posted.entryId).toEqual(expect.any(String));
    await shot(page, '66-bank-lines');

    // The same file again: the import it had, nothing added.
    await page.setInputFiles('#bank-statement-file', { name: 'kapitalbank-2026-11.txt', mimeType: 'text/plain', buffer: november });
    expect((await clickFor(page, '#bank-import-form button[type=submit]', 'POST', /\/statements$/)).status).toBe(200);
    await page.waitForSelector('#bank-import p.hint:has-text("This file was imported into this account on")');
    expect(await page.locator('#bank-import-counts dd').allTextContents()).toEqual(['4', '4', '0', '1', '0', '3']);

    // A statement whose closing balance is 1 000.00 more than its lines make: refused whole, with the difference in words.
    const unbalanced = renderOneC({ ...statement, closingBalance: (Number(statement.closingBalance) + 1000).toFixed(2) });
    await page.setInputFiles('#bank-statement-file', { name: 'kapitalbank-2026-11-corrected.txt', mimeType: 'text/plain', buffer: unbalanced });
    expect((await clickFor(page, '#bank-import-form button[type=submit]', 'POST', /\/statements$/)).status).toBe(202);
    await page.waitForSelector('#bank-import-status[data-status=FAILED]', { timeout: 60_000 });
    expect(await page.getAttribute('#bank-import-problem', 'data-type')).toBe('statement-unbalanced');
    expect(await page.getAttribute('#bank-import-difference', 'data-difference')).toBe('-1000.00');
    expect(await page.textContent('#bank-import-difference')).toBe(`Out by ${grouped('1000.00')} UZS: the opening balance plus the lines comes to ${grouped('1000.00')} less than the closing balance the bank states.`);
    expect(await page.textContent('#bank-import-problem')).toContain('No line of this file was stored.');
    expect(await page.locator(`${lines} tr[data-id]`).count()).toBe(4);
    await shot(page, '67-bank-statement-unbalanced');
    expect(problemsOf(page)).toEqual([]);
  }, BANK_DAY_MS);
});
