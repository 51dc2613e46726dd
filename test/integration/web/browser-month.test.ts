// An accountant's month in the console, as a person does it: Debian's Chromium driven by playwright-core, against
// the real app listening on a port (test/helpers/browser.ts), as browser-invoices.test.ts does. A sale and a
// purchase posted, part of the sale paid from its card, then the aging, the VAT register and the customer's
// reconciliation statement read on the page and checked against what the API answers for the same report. Screenshots land in test/.tmp/screenshots.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import type { TestStack } from '../../helpers/stack';
import { clickFor, grouped, pick, problemsOf, startBrowserStack, submitLogin, type BrowserStack } from '../../helpers/browser';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { aCounterparty, invoicesApi, saveTaxSettings } from '../../helpers/invoices';
import { addMember } from '../../helpers/members';

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

/** A member of the owner's workspace with `roles`, logged in to the console in a fresh page. */
async function consoleAs(owner: Registered, roles: string[]): Promise<{ page: Page; token: string }> {
  const member = await addMember(stack, owner.me.tenantId, roles);
  const page = await web.newPage();
  await submitLogin(web, page, { ...owner, email: member.email });
  await page.waitForSelector(`#roles:text-is("${roles.join(', ')}")`);
  return { page, token: member.accessToken };
}

/** Opens a section by its tab and waits for what shows it is drawn. */
async function openSection(page: Page, id: string, drawn: string): Promise<void> {
  await page.click(`nav.tabs a[href="#${id}"]`);
  await page.waitForSelector(drawn);
}

const form = 'form#invoice-form';
const line = (page: Page, i: number) => page.locator(`${form} tr.invoice-line`).nth(i);

/** Drafts an invoice of one line in the console's form and posts it from its card; answers the posted invoice. */
async function postInvoice(page: Page, invoice: { kind: 'SALES' | 'PURCHASE'; number?: string; date: string; counterparty: RegExp; search: string; description: string; quantity: string; unitPrice: string; account?: string }) {
  await page.click('#new-invoice');
  await page.waitForSelector(form);
  await page.selectOption(`${form} select[name=kind]`, invoice.kind);
  if (invoice.number) await page.fill(`${form} input[name=number]`, invoice.number);
  await page.fill(`${form} input[name=date]`, invoice.date);
  await pick(page.locator(`${form} input[data-picker=counterpartyId]`), invoice.search, invoice.counterparty);
  await line(page, 0).locator('input[name=description]').fill(invoice.description);
  await line(page, 0).locator('input[name=quantity]').fill(invoice.quantity);
  await line(page, 0).locator('input[name=unitPrice]').fill(invoice.unitPrice);
  if (invoice.account) await pick(line(page, 0).locator('input[data-picker=account]'), invoice.account, new RegExp(`^${invoice.account} `));
  expect((await clickFor(page, `${form} button[type=submit]`, 'POST', /\/api\/v1\/invoices\/[^/]+$/)).status).toBe(201);
  await page.waitForSelector('#invoice-status[data-status=DRAFT]');
  const posted = await clickFor(page, '#post-invoice', 'POST', /\/posting$/);
  expect(posted.status).toBe(200);
  await page.waitForSelector('#invoice-status[data-status=POSTED]');
  return posted.body as { id: string; number: string; dueDate: string; totalGross: string; totalVat: string };
}

/** The texts of a table row's cells of the given classes. */
const cells = (page: Page, row: string, classes: readonly string[]) => Promise.all(classes.map((c) => page.textContent(`${row} td.${c}`)));

/** A month in a browser is many requests: more than the default 30 s on two shared cores. */
const MONTH_MS = 180_000;

const AGING_FIELDS = ['notDue', 'days1to30', 'days31to60', 'days61to90', 'over90', 'outstanding', 'advances'] as const;

/** The reconciliation statement's figures: the API's field and the id of the console's element showing it. */
const FIGURES = [['openingBalance', 'reconciliation-opening'], ['turnoverDebit', 'reconciliation-turnover-debit'], ['turnoverCredit', 'reconciliation-turnover-credit'], ['closingBalance', 'reconciliation-closing']] as const;

/** The calendar quarter of today (UTC, as the console reads the date): its first and last days. */
function currentQuarter(): [string, string] {
  const now = new Date();
  const first = Math.floor(now.getUTCMonth() / 3) * 3;
  const day = (month: number, date: number) => new Date(Date.UTC(now.getUTCFullYear(), month, date)).toISOString().slice(0, 10);
  return [day(first, 1), day(first + 3, 0)];
}

describe('an accountant\'s month in the console', () => {
  test('a sale and a purchase posted, part of the sale paid from its card; the aging, the VAT register and the reconciliation statement show what the API answers for them', async () => {
    const owner = await registerWorkspace(stack);
    const company = owner.me.company.id;
    await saveTaxSettings(stack, owner, { taxRegime: 'GENERAL', vatRate: 12 });
    const customer = await aCounterparty(stack, owner, { name: 'Chorsu Trade LLC', tin: '301234567', paymentTermsDays: 30 });
    await aCounterparty(stack, owner, { name: 'Samarkand Supplies', tin: '302222222' });
    const { page, token } = await consoleAs(owner, ['ACCOUNTANT']);
    const sent: Array<{ path: string; body: Record<string, unknown> }> = [];
    page.on('request', (req) => {
      const path = new URL(req.url()).pathname;
      if (path.startsWith('/api/v1/payments/') && req.method() === 'POST') sent.push({ path, body: req.postDataJSON() as Record<string, unknown> });
    });

    // The sale (10 × 100 000 at 12 %) and the purchase (1 × 500 000 at 12 % on materials), posted from their cards.
    await openSection(page, 'invoices', '#invoice-list p:text-is("No invoices yet.")');
    const sale = await postInvoice(page, { kind: 'SALES', date: '2026-03-10', counterparty: /^Chorsu Trade LLC$/, search: '301234567', description: 'Cotton yarn', quantity: '10', unitPrice: '100000' });
    expect(sale).toMatchObject({ number: '2026-000001', dueDate: '2026-04-09', totalGross: '1120000.00', totalVat: '120000.00' });
    await page.click('button:text-is("← All invoices")');
    const purchase = await postInvoice(page, { kind: 'PURCHASE', number: 'SS-0077', date: '2026-03-12', counterparty: /^Samarkand Supplies$/, search: 'Samarkand', description: 'Steel sheets', quantity: '1', unitPrice: '500000', account: '1010' });
    expect(purchase).toMatchObject({ number: 'SS-0077', totalGross: '560000.00' });

    // The sale's card records a payment: the form starts with the invoice's counterparty, currency and outstanding,
    // allocated to it, on the settlement account.
    await page.click('button:text-is("← All invoices")');
    await page.click(`#invoice-list tr[data-id="${sale.id}"] button[data-action=open]`);
    await page.waitForSelector('#record-payment');
    await page.click('#record-payment');
    const paymentForm = 'form#payment-form';
    await page.waitForSelector(`${paymentForm} tr[data-invoice="${sale.id}"]`);
    expect(await page.inputValue(`${paymentForm} select[name=direction]`)).toBe('IN');
    expect(await page.inputValue(`${paymentForm} input[data-picker=counterpartyId]`)).toBe('Chorsu Trade LLC');
    expect(await page.inputValue(`${paymentForm} input[name=amount]`)).toBe(grouped('1120000.00'));
    // The money account is chosen once the chart answers (a function the page runs: the DOM is not this file's).
    await page.waitForFunction("document.querySelector('form#payment-form input[name=cashAccount]').value === '5110'");
    expect(await page.inputValue(`${paymentForm} input[data-picker=cashAccount]`)).toBe('5110 Settlement account');
    expect(await page.isChecked(`${paymentForm} input[value=CHOSEN]`)).toBe(true);
    const allocated = page.locator(`${paymentForm} tr[data-invoice="${sale.id}"] input[name=allocationAmount]`);
    expect(await allocated.inputValue()).toBe(grouped('1120000.00'));
    expect(await page.textContent(`${paymentForm} tr[data-invoice="${sale.id}"] td.outstanding`)).toBe(grouped('1120000.00'));
    const unallocated = () => page.getAttribute('#payment-unallocated', 'data-unallocated');
    expect(await unallocated()).toBe('0.00');

    // More than the invoice has outstanding: the allocation stops at it and the rest is an advance, worked exactly.
    await page.fill(`${paymentForm} input[name=date]`, '2026-04-20');
    await page.fill(`${paymentForm} input[name=amount]`, '1200000.01');
    expect(await allocated.inputValue()).toBe(grouped('1120000.00'));
    expect(await unallocated()).toBe('80000.01');
    expect(await page.textContent('#payment-unallocated')).toBe(`Allocated ${grouped('1120000.00')} UZS · unallocated ${grouped('80000.01')} UZS (held as an advance)`);
    // Oldest first previews what the API will allocate; none leaves it all an advance.
    await page.check(`${paymentForm} input[value=NONE]`);
    expect(await unallocated()).toBe('1200000.01');
    await page.check(`${paymentForm} input[value=CHOSEN]`);
    // Part of the sale: 700 000, all of it allocated to the invoice.
    await page.fill(`${paymentForm} input[name=amount]`, '700 000');
    expect(await allocated.inputValue()).toBe(grouped('700000.00'));
    expect(await unallocated()).toBe('0.00');
    await shot(page, '50-payment-form');
    const posted = await clickFor(page, `${paymentForm} button[type=submit]`, 'POST', /\/api\/v1\/payments\/[^/]+$/);
    expect(posted.status).toBe(201);
    await page.waitForSelector('#payment-status[data-status=POSTED]');
    expect(sent).toEqual([{
      path: `/api/v1/payments/${company}`,
      body: {
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), direction: 'IN', date: '2026-04-20', counterpartyId: customer, amount: '700000', currency: 'UZS',
        cashAccount: '5110', description: 'Invoice 2026-000001', allocations: [{ invoiceId: sale.id, amount: '700000.00' }],
      },
    }]);
    expect(await page.textContent('#payment-allocated')).toBe(`${grouped('700000.00')} UZS`);
    expect(await page.textContent('#payment-unallocated')).toBe('0.00 UZS');
    expect(await page.locator('#payment-allocations tr[data-invoice] td').allTextContents()).toEqual(['2026-000001', '2026-04-20', grouped('700000.00'), expect.stringMatching(/^Entry \d+$/), '']);
    // Fully allocated: nothing to allocate; an accountant may cancel it.
    expect(await page.locator('#open-allocate').count()).toBe(0);
    expect(await page.isVisible('#open-cancel-payment')).toBe(true);
    await shot(page, '51-payment-card');

    // Back on the invoice: the remainder is outstanding.
    await page.click('button:text-is("← Back to the invoice")');
    await page.waitForSelector('#invoice-status[data-status=POSTED]');
    expect(await page.textContent('#invoice-outstanding')).toBe(`${grouped('420000.00')} UZS`);

    // The aging of receivables on 20 May: due on 9 April, 41 days past due, the remainder is in 31–60.
    await openSection(page, 'aging', '#aging[data-side=RECEIVABLE] table[data-currency=UZS]');
    await page.fill('#aging-form input[name=asOf]', '2026-05-20');
    await page.waitForSelector('#aging[data-as-of="2026-05-20"][data-side=RECEIVABLE]');
    const customerRow = `#aging table[data-currency=UZS] tr[data-counterparty="${customer}"]`;
    const shown = () => cells(page, customerRow, AGING_FIELDS);
    const aging = (await api(stack).get(`/api/v1/ledger/${company}/reports/aging`).query({ asOf: '2026-05-20', side: 'RECEIVABLE' }).set(...bearer(token)).expect(200)).body as {
      items: Array<Record<(typeof AGING_FIELDS)[number] | 'counterpartyId' | 'currency', string>>;
      totals: Array<Record<(typeof AGING_FIELDS)[number] | 'currency', string>>;
    };
    const item = aging.items.find((i) => i.counterpartyId === customer)!;
    expect(item).toMatchObject({ currency: 'UZS', notDue: '0.00', days1to30: '0.00', days31to60: '420000.00', days61to90: '0.00', over90: '0.00', outstanding: '420000.00', advances: '0.00' });
    const expected = AGING_FIELDS.map((f) => grouped(item[f]));
    expect(await shown()).toEqual(expected);
    expect(aging.items).toHaveLength(1);
    expect(await page.locator('#aging table[data-currency=UZS] tbody tr').count()).toBe(2);
    expect(await cells(page, '#aging table[data-currency=UZS] tr.total', AGING_FIELDS)).toEqual(AGING_FIELDS.map((f) => grouped(aging.totals[0]![f])));
    expect(await page.textContent(`${customerRow} td.counterparty`)).toBe('Chorsu Trade LLC');
    await shot(page, '52-aging');
    // The customer's name opens its open sales invoices; the way back is to the aging as it was.
    await page.click(`${customerRow} button[data-action=invoices]`);
    await page.waitForSelector(`#invoice-list tr[data-id="${sale.id}"]`);
    expect(await page.locator('#invoice-list tr[data-id] td.number').allTextContents()).toEqual(['2026-000001']);
    expect(await page.inputValue('#invoice-filters input[data-picker=counterpartyId]')).toBe('Chorsu Trade LLC');
    expect(await page.textContent(`#invoice-list tr[data-id="${sale.id}"] td.outstanding`)).toBe(`${grouped('420000.00')} UZS`);
    await page.click('button:text-is("← Back to the aging")');
    expect(await page.inputValue('#aging-form input[name=asOf]')).toBe('2026-05-20');
    expect(await shown()).toEqual(expected);
    // Its reconciliation statement from the aging runs to the report's date, from the start of its quarter: the
    // closing balance is what the aging has outstanding (no advances).
    await page.click(`${customerRow} button[data-action=reconciliation]`);
    await page.waitForSelector('#reconciliation[data-from="2026-04-01"][data-to="2026-05-20"][data-view=COMPANY]');
    expect(await page.textContent('#reconciliation-closing .amount')).toBe(grouped(item.outstanding));
    await page.click('button:text-is("← Back to the aging")');
    expect(await shown()).toEqual(expected);

    // The VAT register of March, sales: the sale's row, its totals and the ledger's VAT beside them, as the API says.
    await openSection(page, 'vat-register', '#vat-register-form');
    await page.fill('#vat-register-form input[name=month]', '2026-03');
    await page.waitForSelector('#vat-register[data-month="2026-03"][data-side=SALES]');
    const register = (await api(stack).get(`/api/v1/ledger/${company}/reports/vat-register`).query({ month: '2026-03', side: 'SALES' }).set(...bearer(token)).expect(200)).body as {
      rows: Array<{ invoiceId: string; number: string; date: string; net: string; vat: string; gross: string }>;
      totals: { net: string; vat: string; gross: string };
      ledgerVat: string;
      totalElements: number;
    };
    expect(register.rows).toEqual([expect.objectContaining({ invoiceId: sale.id, number: '2026-000001', date: '2026-03-10', net: '1000000.00', vat: '120000.00', gross: '1120000.00' })]);
    expect(register).toMatchObject({ totals: { net: '1000000.00', vat: '120000.00', gross: '1120000.00' }, ledgerVat: '120000.00', totalElements: 1 });
    const saleRow = `table.vat-rows tr[data-invoice="${sale.id}"]`;
    expect(await page.locator('table.vat-rows tbody tr').count()).toBe(register.rows.length);
    expect(await cells(page, saleRow, ['date', 'number', 'net', 'vat', 'gross'])).toEqual([register.rows[0]!.date, register.rows[0]!.number, ...['net', 'vat', 'gross'].map((k) => grouped(register.rows[0]![k as 'net']))]);
    expect(await cells(page, '#vat-register-total', ['net', 'vat', 'gross'])).toEqual([grouped(register.totals.net), grouped(register.totals.vat), grouped(register.totals.gross)]);
    expect(await page.textContent('#ledger-vat')).toBe(grouped(register.ledgerVat));
    expect(await page.textContent('#register-vat')).toBe(grouped(register.totals.vat));
    expect(await page.getAttribute('#vat-tie', 'data-ties')).toBe('true');
    expect(await page.textContent('#vat-register-page')).toBe('Page 1 of 1 · 1 row');
    await shot(page, '53-vat-register');
    // The purchases of the month are the other side.
    await page.selectOption('#vat-register-form select[name=side]', 'PURCHASES');
    await page.waitForSelector(`#vat-register[data-side=PURCHASES] table.vat-rows tr[data-invoice="${purchase.id}"]`);
    expect(await page.textContent('#ledger-vat')).toBe(grouped('60000.00'));

    // The customer's reconciliation statement, from its row in the counterparties. It opens on the current quarter;
    // for the second quarter, March's sale is the opening balance and April's payment the one line.
    await openSection(page, 'counterparties', `#counterparty-list tr[data-id="${customer}"]`);
    await page.click(`#counterparty-list tr[data-id="${customer}"] button[data-action=reconciliation]`);
    await page.waitForSelector('#reconciliation[data-view=COMPANY]');
    expect([await page.inputValue('#reconciliation-form input[name=from]'), await page.inputValue('#reconciliation-form input[name=to]')]).toEqual(currentQuarter());
    expect(await page.textContent('#reconciliation-counterparty')).toBe('TIN 301234567');
    await page.fill('#reconciliation-form input[name=from]', '2026-04-01');
    await page.fill('#reconciliation-form input[name=to]', '2026-06-30');
    const statementOf = async (view: 'COMPANY' | 'COUNTERPARTY') => (await api(stack).get(`/api/v1/counterparties/${company}/${customer}/reconciliation-statement`)
      .query({ from: '2026-04-01', to: '2026-06-30', view }).set(...bearer(token)).expect(200)).body as Record<(typeof FIGURES)[number][0], string> & { lines: Array<{ kind: string; debit: string; credit: string; balance: string }> };
    const ours = await statementOf('COMPANY');
    expect(ours).toMatchObject({ counterpartyName: 'Chorsu Trade LLC', openingBalance: '1120000.00', turnoverDebit: '0.00', turnoverCredit: '700000.00', closingBalance: '420000.00' });
    expect(ours.lines).toEqual([expect.objectContaining({ kind: 'PAYMENT_RECEIVED', debit: '0.00', credit: '700000.00', balance: '420000.00' })]);
    const figures = () => Promise.all(FIGURES.map(([, id]) => page.textContent(`#${id} .amount`)));
    await page.waitForSelector('#reconciliation[data-from="2026-04-01"][data-to="2026-06-30"][data-view=COMPANY]');
    expect(await figures()).toEqual(FIGURES.map(([key]) => grouped(ours[key])));
    expect(await page.textContent('#reconciliation-opening .owed')).toBe(` · Chorsu Trade LLC owes us ${grouped('1120000.00')} UZS.`);
    expect(await page.textContent('#reconciliation-closing .owed')).toBe(` · Chorsu Trade LLC owes us ${grouped('420000.00')} UZS.`);
    const paymentLine = '#reconciliation tr[data-kind=PAYMENT_RECEIVED]';
    expect(await cells(page, paymentLine, ['debit', 'credit', 'balance'])).toEqual(['0.00', grouped('700000.00'), grouped('420000.00')]);
    await shot(page, '55-reconciliation');
    // The payment's line opens its card; the way back is to the statement.
    await page.click(`${paymentLine} button[data-action=open-document]`);
    await page.waitForSelector('#payment-status[data-status=POSTED]');
    await page.click('button:text-is("← Back to the reconciliation statement")');
    await page.waitForSelector(`${paymentLine} td.credit:text-is("${grouped('700000.00')}")`);

    // As the customer keeps it: debit and credit exchanged, the balances negated; who owes whom is the same.
    await page.selectOption('#reconciliation-form select[name=view]', 'COUNTERPARTY');
    await page.waitForSelector('#reconciliation[data-view=COUNTERPARTY]');
    const theirs = await statementOf('COUNTERPARTY');
    expect(theirs).toMatchObject({ openingBalance: '-1120000.00', turnoverDebit: ours.turnoverCredit, turnoverCredit: ours.turnoverDebit, closingBalance: '-420000.00' });
    expect(await figures()).toEqual(FIGURES.map(([key]) => grouped(theirs[key])));
    expect(await page.textContent('#reconciliation-closing .owed')).toBe(` · Chorsu Trade LLC owes us ${grouped('420000.00')} UZS.`);
    expect(await cells(page, paymentLine, ['debit', 'credit', 'balance'])).toEqual([grouped('700000.00'), '0.00', grouped('-420000.00')]);
    // The CSV is the act in the view shown, its closing row the JSON's.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#section-counterparties button.download[data-format=csv]')]);
    expect(csv.suggestedFilename()).toBe(`reconciliation-statement-${company}-${customer}-2026-04-01-2026-06-30-counterparty-view.csv`);
    const records = parse(readFileSync((await csv.path())!), { columns: true, bom: true }) as Array<Record<string, string>>;
    expect(records.map((r) => [r.kind, r.debit, r.credit, r.balance])).toEqual([
      ['OPENING_BALANCE', '', '', theirs.openingBalance],
      ['PAYMENT_RECEIVED', '700000.00', '0.00', theirs.closingBalance],
      ['TURNOVERS', theirs.turnoverDebit, theirs.turnoverCredit, ''],
      ['CLOSING_BALANCE', '', '', theirs.closingBalance],
    ]);
    expect(problemsOf(page)).toEqual([]);
  }, MONTH_MS);

  test('an advance received is allocated later from the payment\'s card, then the payment is cancelled; a viewer sees it without the buttons', async () => {
    const owner = await registerWorkspace(stack);
    const company = owner.me.company.id;
    await saveTaxSettings(stack, owner, { taxRegime: 'GENERAL', vatRate: 12 });
    const customer = await aCounterparty(stack, owner, { name: 'Bukhara Textiles', tin: '303333333', paymentTermsDays: 10 });
    const invoices = invoicesApi(stack, owner);
    const ids: string[] = [];
    for (const [date, price] of [['2026-06-01', '100000'], ['2026-06-05', '50000']] as const) {
      const draft = await invoices.create({ kind: 'SALES', date, counterpartyId: customer, lines: [{ description: 'Yarn', quantity: '1', unitPrice: price }] }).expect(201);
      await invoices.post(draft.body.id as string).expect(200);
      ids.push(draft.body.id as string);
    }
    const { page } = await consoleAs(owner, ['ACCOUNTANT']);
    const sent: Array<Record<string, unknown>> = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/api/v1/payments/') && req.method() === 'POST') sent.push(req.postDataJSON() as Record<string, unknown>);
    });

    // An advance: 200 000 received before anything is allocated.
    await openSection(page, 'payments', '#payment-list p:text-is("No payments yet.")');
    await page.click('#new-payment');
    const paymentForm = 'form#payment-form';
    await page.waitForSelector(paymentForm);
    await page.fill(`${paymentForm} input[name=date]`, '2026-06-10');
    await pick(page.locator(`${paymentForm} input[data-picker=counterpartyId]`), 'Bukhara', /^Bukhara Textiles$/);
    await page.waitForSelector(`${paymentForm} tr[data-invoice="${ids[1]}"]`);
    // Oldest first: the first invoice's 112 000 whole, then 56 000 of the second, 32 000 an advance.
    await page.fill(`${paymentForm} input[name=amount]`, '200000');
    expect(await page.locator(`${paymentForm} tr[data-invoice] output.takes`).allTextContents()).toEqual([grouped('112000.00'), grouped('56000.00')]);
    expect(await page.getAttribute('#payment-unallocated', 'data-unallocated')).toBe('32000.00');
    await page.check(`${paymentForm} input[value=NONE]`);
    await pick(page.locator(`${paymentForm} input[data-picker=cashAccount]`), '5010', /^5010 /);
    expect((await clickFor(page, `${paymentForm} button[type=submit]`, 'POST', /\/api\/v1\/payments\/[^/]+$/)).status).toBe(201);
    await page.waitForSelector('#payment-status[data-status=POSTED]');
    expect(sent.at(-1)).toEqual({ requestId: expect.any(String), direction: 'IN', date: '2026-06-10', counterpartyId: customer, amount: '200000', currency: 'UZS', cashAccount: '5010' });
    expect(await page.textContent('#payment-unallocated')).toBe(`${grouped('200000.00')} UZS`);

    // Allocated on 15 June to the invoices chosen: the second one whole, 50 000 of the first; 38 000 stays.
    await page.click('#open-allocate');
    await page.waitForSelector(`#allocate-payment tr[data-invoice="${ids[0]}"]`);
    await page.fill('#allocate-payment input[name=date]', '2026-06-15');
    await page.check('#allocate-payment input[value=CHOSEN]');
    await page.click(`#allocate-payment tr[data-invoice="${ids[1]}"] button.fill`);
    await page.fill(`#allocate-payment tr[data-invoice="${ids[0]}"] input[name=allocationAmount]`, '150000');
    // More than the first invoice's outstanding is refused beside it, before anything is sent.
    await page.click('#allocate-payment button[type=submit]');
    expect(await page.textContent(`#allocate-payment tr[data-invoice="${ids[0]}"] .field-error`)).toBe(`More than the ${grouped('112000.00')} outstanding.`);
    expect(await page.getAttribute('#allocate-unallocated', 'data-unallocated')).toBe('-6000.00');
    await page.fill(`#allocate-payment tr[data-invoice="${ids[0]}"] input[name=allocationAmount]`, '50000');
    expect(await page.getAttribute('#allocate-unallocated', 'data-unallocated')).toBe('94000.00');
    const allocated = await clickFor(page, '#allocate-payment button[type=submit]', 'POST', /\/allocations$/);
    expect(allocated.status).toBe(200);
    expect(sent.at(-1)).toEqual({ date: '2026-06-15', allocations: [{ invoiceId: ids[0], amount: '50000' }, { invoiceId: ids[1], amount: '56000.00' }] });
    await page.waitForSelector('#payment-allocations tr[data-invoice]');
    expect(await page.textContent('#payment-unallocated')).toBe(`${grouped('94000.00')} UZS`);
    expect(await page.locator('#payment-allocations tr[data-invoice] td.amount').allTextContents()).toEqual([grouped('50000.00'), grouped('56000.00')]);
    await shot(page, '54-payment-allocated');

    // Cancelled: a fresh requestId each time, the allocations released on the date.
    await page.click('#open-cancel-payment');
    await page.fill('form#cancel-payment input[name=date]', '2026-06-20');
    await page.fill('form#cancel-payment input[name=reason]', 'Returned by the bank');
    expect((await clickFor(page, 'form#cancel-payment button[type=submit]', 'POST', /\/cancellation$/)).status).toBe(200);
    await page.waitForSelector('#payment-status[data-status=CANCELLED]');
    expect(sent.at(-1)).toEqual({ requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), date: '2026-06-20', reason: 'Returned by the bank' });
    expect(sent.at(-1)!.requestId).not.toBe(sent[0]!.requestId);
    expect(await page.locator('#payment-allocations tr.released').count()).toBe(2);
    expect(await page.textContent('#payment-reversal')).toMatch(/^Entry \d+$/);
    expect(await page.locator('#payment-actions').count()).toBe(0);
    const outstanding = await Promise.all(ids.map(async (id) => (await invoices.get(id).expect(200)).body.outstanding as string));
    expect(outstanding).toEqual(['112000.00', '56000.00']);

    // A viewer reads the payments but is offered nothing to change.
    const viewer = await consoleAs(owner, ['VIEWER']);
    await openSection(viewer.page, 'payments', '#payment-list tr[data-id]');
    expect(await viewer.page.locator('#new-payment').count()).toBe(0);
    await viewer.page.click('#payment-list tr[data-id] button[data-action=open]');
    await viewer.page.waitForSelector('#payment-status[data-status=CANCELLED]');
    expect(await viewer.page.locator('#payment-actions, #open-allocate, #open-cancel-payment').count()).toBe(0);
    const list = (await api(stack).get(`/api/v1/payments/${company}`).set(...bearer(owner.accessToken)).expect(200)).body as { items: Array<{ status: string }> };
    expect(list.items.map((p) => p.status)).toEqual(['CANCELLED']);
    expect(problemsOf(page)).toEqual([]);
    expect(problemsOf(viewer.page)).toEqual([]);
  }, MONTH_MS);
});
