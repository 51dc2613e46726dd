import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { storeCbuRate } from '../../helpers/currency';
import { updateCounterparty } from '../../helpers/counterparties';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { CSV, XLSX, readCsv, readXlsx } from '../../helpers/exports';
import { paymentsApi, reconciliationOf, sheetFigures } from '../../helpers/reconciliation';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';

// The reconciliation statement (getReconciliationStatement) with a customer who is also a supplier, through the
// real app: a line per document of April 2027 touching it on settlement accounts, each named and sourced, the
// balances tied to the turnover sheet of the counterparty, the counterparty's view, pages, and CSV and XLSX
// read back equal to the JSON. This file's EUR rate is stored for 2027-04-01; its documents are dated in 2027.

const EUR_RATE = '14000.50';
const APRIL = { from: '2027-04-01', to: '2027-04-30' };

let stack: TestStack;
let alice: Registered;
let bob: Registered;
let both: string;
let bobsCounterparty: string;
/** The April lines as the statement must show them, in order. */
let expected: Array<Record<string, unknown>>;
let manualEntryId: string;

beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  await Promise.all([saveTaxSettings(stack, alice), saveTaxSettings(stack, bob), storeCbuRate(stack, 'EUR', '2027-04-01', EUR_RATE)]);
  both = await aCounterparty(stack, alice, { name: '=Both Ways, "Trading" LLC', tin: '305000001' });
  bobsCounterparty = await aCounterparty(stack, bob, { name: "Bob's customer" });
  const invoices = invoicesApi(stack, alice);
  const payments = paymentsApi(stack, alice);
  const ledger = ledgerApi(stack, alice);
  const posted = async (body: Record<string, unknown>) => (await invoices.post((await invoices.create(body).expect(201)).body.id).expect(200)).body;
  const exempt = (price: string) => [{ description: 'Goods', quantity: '1', unitPrice: price, vatRate: null }];

  // Before April: a sale of 500 (the opening balance).
  await posted({ ...salesBody(both, '2027-03-15'), lines: exempt('500') });
  // April.
  const s1 = await posted(salesBody(both, '2027-04-02', { lines: [{ description: 'Goods', quantity: '1', unitPrice: '1000' }] })); // 1120 with 12 % VAT
  const p1 = await posted(purchaseBody(both, '2027-04-03', 'P-77', { lines: [{ description: 'Parts', quantity: '1', unitPrice: '500', account: '1010' }] })); // 560
  const partial = (await payments.post({ direction: 'IN', date: '2027-04-05', counterpartyId: both, amount: '600', allocations: [{ invoiceId: s1.id, amount: '600' }] }).expect(201)).body;
  const over = (await payments.post({ direction: 'IN', date: '2027-04-08', counterpartyId: both, amount: '1000', allocations: [{ invoiceId: s1.id, amount: '520' }] }).expect(201)).body;
  const s2 = await posted({ ...salesBody(both, '2027-04-10'), lines: exempt('300') });
  const allocation = (await payments.allocate(over.id, { date: '2027-04-12', allocations: [{ invoiceId: s2.id, amount: '300' }] }).expect(200)).body;
  const s3 = await posted({ ...salesBody(both, '2027-04-15'), lines: exempt('200') });
  const s3cancelled = (await invoices.cancel(s3.id, { requestId: randomUUID(), date: '2027-04-18', reason: 'returned' }).expect(200)).body;
  // A manual entry naming the counterparty on 4010, and on 9020 (no settlement account: not in the statement).
  manualEntryId = (
    await ledger
      .post(entryBody('2027-04-20', [{ accountCode: '4010', debit: '150', counterpartyId: both }, { accountCode: '9020', credit: '150', counterpartyId: both }], { description: 'Penalty for late delivery' }))
      .expect(201)
  ).body.id;
  const paidOut = (await payments.post({ direction: 'OUT', date: '2027-04-22', counterpartyId: both, amount: '560', allocations: [{ invoiceId: p1.id, amount: '560' }] }).expect(201)).body;
  const bounced = (await payments.post({ direction: 'IN', date: '2027-04-25', counterpartyId: both, amount: '90' }).expect(201)).body;
  const bouncedCancelled = (await payments.cancel(bounced.id, '2027-04-26').expect(200)).body;
  // 100 EUR at 14000.50: 1400050.00 UZS.
  const eur = await posted({ ...salesBody(both, '2027-04-28'), currency: 'EUR', lines: exempt('100') });
  // After April: not in April's statement.
  await posted({ ...salesBody(both, '2027-05-02'), lines: exempt('700') });
  // Bob's company: never in Alice's statement.
  const bobs = invoicesApi(stack, bob);
  await bobs.post((await bobs.create(salesBody(bobsCounterparty, '2027-04-02')).expect(201)).body.id).expect(200);

  const number = async (entryId: string) => (await ledger.get(entryId).expect(200)).body.number as number;
  const line = async (
    date: string,
    kind: string,
    document: string,
    source: { type: string; id: string } | null,
    entryId: string,
    accounts: string[],
    debit: string,
    credit: string,
    balance: string,
    foreign: [string, string, string] | null = null,
  ) => ({
    date, kind, document, source, entryId, entryNumber: await number(entryId), accounts, debit, credit, balance,
    currency: foreign?.[0] ?? null, currencyDebit: foreign?.[1] ?? null, currencyCredit: foreign?.[2] ?? null,
  });
  const invoice = (id: string) => ({ type: 'INVOICE', id });
  const payment = (id: string) => ({ type: 'PAYMENT', id });
  expected = [
    await line('2027-04-02', 'SALES_INVOICE', 'Sales invoice 2027-000002', invoice(s1.id), s1.entryId, ['4010'], '1120.00', '0.00', '1620.00'),
    await line('2027-04-03', 'PURCHASE_INVOICE', 'Purchase invoice P-77', invoice(p1.id), p1.entryId, ['6010'], '0.00', '560.00', '1060.00'),
    await line('2027-04-05', 'PAYMENT_RECEIVED', 'Payment received for sales invoice 2027-000002', payment(partial.id), partial.entryId, ['4010'], '0.00', '600.00', '460.00'),
    await line('2027-04-08', 'PAYMENT_RECEIVED', 'Payment received for sales invoice 2027-000002', payment(over.id), over.entryId, ['4010', '6310'], '0.00', '1000.00', '-540.00'),
    await line('2027-04-10', 'SALES_INVOICE', 'Sales invoice 2027-000003', invoice(s2.id), s2.entryId, ['4010'], '300.00', '0.00', '-240.00'),
    await line('2027-04-12', 'ADVANCE_ALLOCATION', 'Advance received on 2027-04-08 allocated to sales invoice 2027-000003', payment(over.id),
      allocation.allocations.find((a: { invoiceId: string }) => a.invoiceId === s2.id).entryId, ['4010', '6310'], '300.00', '300.00', '-240.00'),
    await line('2027-04-15', 'SALES_INVOICE', 'Sales invoice 2027-000004', invoice(s3.id), s3.entryId, ['4010'], '200.00', '0.00', '-40.00'),
    await line('2027-04-18', 'INVOICE_CANCELLATION', 'Cancellation of sales invoice 2027-000004', invoice(s3.id), s3cancelled.cancellation.entryId, ['4010'], '0.00', '200.00', '-240.00'),
    await line('2027-04-20', 'JOURNAL_ENTRY', `Journal entry #${await number(manualEntryId)}: Penalty for late delivery`, null, manualEntryId, ['4010'], '150.00', '0.00', '-90.00'),
    await line('2027-04-22', 'PAYMENT_MADE', 'Payment made for purchase invoice P-77', payment(paidOut.id), paidOut.entryId, ['6010'], '560.00', '0.00', '470.00'),
    await line('2027-04-25', 'PAYMENT_RECEIVED', 'Payment received', payment(bounced.id), bounced.entryId, ['6310'], '0.00', '90.00', '380.00'),
    await line('2027-04-26', 'PAYMENT_CANCELLATION', 'Cancellation of the payment received on 2027-04-25', payment(bounced.id), bouncedCancelled.cancellation.entryId, ['6310'], '90.00', '0.00', '470.00'),
    await line('2027-04-28', 'SALES_INVOICE', 'Sales invoice 2027-000005', invoice(eur.id), eur.entryId, ['4010'], '1400050.00', '0.00', '1400520.00', ['EUR', '100.00', '0.00']),
  ];
}, 120_000);
afterAll(async () => {
  await stack.stop();
});

describe('getReconciliationStatement', () => {
  test('a month with a customer who is also a supplier: a line per document on settlement accounts, named, sourced and in journal order, with the running balance; the opening and closing balances and turnovers', async () => {
    const res = await reconciliationOf(stack, alice, both, APRIL).expect(200);
    expect(res.body.lines).toEqual(expected);
    expect(res.body).toMatchObject({
      counterpartyId: both,
      counterpartyName: '=Both Ways, "Trading" LLC',
      counterpartyTin: '305000001',
      from: '2027-04-01',
      to: '2027-04-30',
      view: 'COMPANY',
      openingBalance: '500.00',
      turnoverDebit: '1402770.00',
      turnoverCredit: '2750.00',
      closingBalance: '1400520.00',
      pageOpeningBalance: '500.00',
      page: 0,
      size: 50,
      totalElements: 13,
      totalPages: 1,
    });
  });

  test('the statement ties to the ledger: opening and closing balances and turnovers are the turnover sheet of the counterparty over the settlement accounts, whose other accounts (9020) do not count', async () => {
    for (const range of [APRIL, { from: '2027-04-06', to: '2027-04-19' }, { from: '2027-03-01', to: '2027-05-31' }, { from: '2027-04-27', to: '2027-04-27' }]) {
      const statement = (await reconciliationOf(stack, alice, both, range).expect(200)).body;
      const sheet = await sheetFigures(stack, alice, both, range.from, range.to);
      expect({ range, opening: statement.openingBalance, debit: statement.turnoverDebit, credit: statement.turnoverCredit, closing: statement.closingBalance }).toEqual({
        range,
        opening: sheet.opening,
        debit: sheet.turnoverDebit,
        credit: sheet.turnoverCredit,
        closing: sheet.closing,
      });
    }
    expect((await sheetFigures(stack, alice, both, APRIL.from, APRIL.to)).accounts).toContain('9020');
    // The range in the middle: the lines of 04-06..04-19, starting from the balance at 04-05.
    const middle = (await reconciliationOf(stack, alice, both, { from: '2027-04-06', to: '2027-04-19' }).expect(200)).body;
    expect(middle.openingBalance).toBe('460.00');
    expect(middle.lines).toEqual(expected.slice(3, 8));
    expect(middle.closingBalance).toBe('-240.00');
  });

  test("view=COUNTERPARTY: the same statement as the counterparty keeps it, debit and credit (foreign amounts too) exchanged and every balance negated", async () => {
    const res = (await reconciliationOf(stack, alice, both, { ...APRIL, view: 'COUNTERPARTY' }).expect(200)).body;
    const negated = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : amount === '0.00' ? amount : `-${amount}`);
    expect(res).toMatchObject({ view: 'COUNTERPARTY', openingBalance: '-500.00', turnoverDebit: '2750.00', turnoverCredit: '1402770.00', closingBalance: '-1400520.00', pageOpeningBalance: '-500.00' });
    expect(res.lines).toEqual(
      expected.map((l) => ({ ...l, debit: l.credit, credit: l.debit, balance: negated(l.balance as string), currencyDebit: l.currencyCredit, currencyCredit: l.currencyDebit })),
    );
  });

  test('pages: the lines a page at a time, each page carrying the running balance on from pageOpeningBalance, every page with the whole range\'s balances', async () => {
    const pages = [];
    for (let page = 0; page < 3; page++) pages.push((await reconciliationOf(stack, alice, both, { ...APRIL, page, size: 5 }).expect(200)).body);
    expect(pages.map((p) => [p.page, p.size, p.totalElements, p.totalPages, p.lines.length, p.pageOpeningBalance])).toEqual([
      [0, 5, 13, 3, 5, '500.00'],
      // The balances after the fifth and the tenth line.
      [1, 5, 13, 3, 5, '-240.00'],
      [2, 5, 13, 3, 3, '470.00'],
    ]);
    expect(pages.flatMap((p) => p.lines)).toEqual(expected);
    for (const p of pages) expect([p.openingBalance, p.turnoverDebit, p.turnoverCredit, p.closingBalance]).toEqual(['500.00', '1402770.00', '2750.00', '1400520.00']);
    const beyond = (await reconciliationOf(stack, alice, both, { ...APRIL, page: 9, size: 5 }).expect(200)).body;
    expect([beyond.lines, beyond.pageOpeningBalance, beyond.closingBalance]).toEqual([[], '1400520.00', '1400520.00']);
  });

  test('a counterparty without lines in the range has its balance as opening and closing and no lines; an archived one still answers', async () => {
    const quiet = (await reconciliationOf(stack, alice, both, { from: '2027-06-01', to: '2027-06-30' }).expect(200)).body;
    expect(quiet).toMatchObject({ openingBalance: '1401220.00', turnoverDebit: '0.00', turnoverCredit: '0.00', closingBalance: '1401220.00', lines: [], totalElements: 0, totalPages: 0 });
    const archived = await aCounterparty(stack, alice, { name: 'Archived' });
    await updateCounterparty(stack, alice, archived, { name: 'Archived', archived: true, expectedVersion: 1 }).expect(200);
    expect((await reconciliationOf(stack, alice, archived, APRIL).expect(200)).body).toMatchObject({ counterpartyName: 'Archived', counterpartyTin: null, openingBalance: '0.00', closingBalance: '0.00', lines: [] });
  });

  test('bad input: to before from, a range over 366 days, impossible or out-of-bounds dates, a missing date, a bad view or counterparty id are 400; an unknown counterparty, another company\'s counterparty, or a company outside the workspace is 404', async () => {
    const bad: Array<Record<string, string>> = [
      { from: '2027-04-30', to: '2027-04-01' },
      { from: '2026-01-01', to: '2027-01-02' },
      { from: '2027-02-30', to: '2027-03-31' },
      { from: '2027-4-1', to: '2027-04-30' },
      { from: '1899-12-31', to: '1900-01-31' },
      { from: '2027-04-01' },
      { to: '2027-04-30' },
      { ...APRIL, view: 'SUPPLIER' },
      { ...APRIL, size: '101' },
    ];
    for (const query of bad) {
      const res = await reconciliationOf(stack, alice, both, query);
      expect({ query, status: res.status, type: res.body.type }).toEqual({ query, status: 400, type: '/problems/validation' });
    }
    expect((await reconciliationOf(stack, alice, 'not-a-uuid', APRIL).expect(400)).body.type).toBe('/problems/validation');
    for (const [counterpartyId, legalEntityId] of [[randomUUID(), alice.me.company.id], [bobsCounterparty, alice.me.company.id], [both, bob.me.company.id]] as const) {
      const res = await reconciliationOf(stack, alice, counterpartyId, APRIL, { legalEntityId });
      expect({ counterpartyId, status: res.status, type: res.body.type }).toEqual({ counterpartyId, status: 404, type: '/problems/not-found' });
    }
    // Bob cannot read Alice's counterparty through his company either.
    expect((await reconciliationOf(stack, bob, both, APRIL).expect(404)).body.type).toBe('/problems/not-found');
  });
});

describe('getReconciliationStatement exports', () => {
  /** A statement line as the export writes it: the counterparty first, `source` dotted, `accounts` joined. */
  const exportRow = (l: Record<string, unknown>) => {
    const source = l.source as { type: string; id: string } | null;
    return {
      counterpartyName: `'=Both Ways, "Trading" LLC`,
      counterpartyTin: '305000001',
      date: l.date,
      kind: l.kind,
      document: l.document,
      'source.type': source?.type ?? '',
      'source.id': source?.id ?? '',
      entryId: l.entryId ?? '',
      entryNumber: l.entryNumber === null ? '' : String(l.entryNumber),
      accounts: (l.accounts as string[]).join(' '),
      debit: l.debit ?? '',
      credit: l.credit ?? '',
      balance: l.balance ?? '',
      currency: l.currency ?? '',
      currencyDebit: l.currencyDebit ?? '',
      currencyCredit: l.currencyCredit ?? '',
    };
  };
  const summary = (kind: string, date: string, document: string, debit: string | null, credit: string | null, balance: string | null) =>
    exportRow({ date, kind, document, source: null, entryId: null, entryNumber: null, accounts: [], debit, credit, balance, currency: null, currencyDebit: null, currencyCredit: null });

  test('as CSV: the opening balance, every line as the JSON has it, the turnovers and the closing balance, with the counterparty on each row (free text guarded); the same in the counterparty\'s view', async () => {
    const csv = await reconciliationOf(stack, alice, both, { ...APRIL, page: 1, size: 2 }, { accept: CSV }).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="reconciliation-statement-${alice.me.company.id}-${both}-2027-04-01-2027-04-30.csv"`);
    expect(csv.text.split('\n')[0]).toBe(
      'counterpartyName,counterpartyTin,date,kind,document,source.type,source.id,entryId,entryNumber,accounts,debit,credit,balance,currency,currencyDebit,currencyCredit',
    );
    expect(await readCsv(csv.text)).toEqual([
      summary('OPENING_BALANCE', '2027-04-01', 'Opening balance', null, null, '500.00'),
      ...expected.map(exportRow),
      summary('TURNOVERS', '2027-04-30', 'Turnovers from 2027-04-01 to 2027-04-30', '1402770.00', '2750.00', null),
      summary('CLOSING_BALANCE', '2027-04-30', 'Closing balance', null, null, '1400520.00'),
    ]);
    const theirs = await reconciliationOf(stack, alice, both, { ...APRIL, view: 'COUNTERPARTY' }, { accept: CSV }).expect(200);
    expect(theirs.headers['content-disposition']).toBe(`attachment; filename="reconciliation-statement-${alice.me.company.id}-${both}-2027-04-01-2027-04-30-counterparty-view.csv"`);
    const json = (await reconciliationOf(stack, alice, both, { ...APRIL, view: 'COUNTERPARTY' }).expect(200)).body;
    expect(await readCsv(theirs.text)).toEqual([
      summary('OPENING_BALANCE', '2027-04-01', 'Opening balance', null, null, json.openingBalance),
      ...json.lines.map(exportRow),
      summary('TURNOVERS', '2027-04-30', 'Turnovers from 2027-04-01 to 2027-04-30', json.turnoverDebit, json.turnoverCredit, null),
      summary('CLOSING_BALANCE', '2027-04-30', 'Closing balance', null, null, json.closingBalance),
    ]);
  });

  test('as XLSX: the same rows, amounts as numbers and names as typed; another type is 406; an unknown counterparty is a 404 problem, not a file', async () => {
    const xlsx = await reconciliationOf(stack, alice, both, APRIL, { accept: XLSX }).expect(200);
    expect(xlsx.headers['content-disposition']).toBe(`attachment; filename="reconciliation-statement-${alice.me.company.id}-${both}-2027-04-01-2027-04-30.xlsx"`);
    const { name, rows } = await readXlsx(xlsx.body as Buffer);
    expect(name).toBe('Reconciliation statement');
    const csvRows = await readCsv((await reconciliationOf(stack, alice, both, APRIL, { accept: CSV }).expect(200)).text);
    const header = Object.keys(csvRows[0]!);
    expect(rows[0]).toEqual(header);
    // A cell as the CSV has it: numbers as their decimal text, empty cells empty, the name without the guard.
    const asText = (cell: unknown, column: string) => (cell === undefined || cell === null ? '' : typeof cell === 'number' ? (column === 'entryNumber' ? String(cell) : cell.toFixed(2)) : String(cell));
    const unguarded = csvRows.map((r) => ({ ...r, counterpartyName: '=Both Ways, "Trading" LLC' }));
    expect(rows.slice(1).map((cells) => Object.fromEntries(header.map((column, i) => [column, asText(cells[i], column)])))).toEqual(unguarded);
    expect(rows[14]![header.indexOf('debit')]).toBe(1400050);
    await reconciliationOf(stack, alice, both, APRIL, { accept: 'application/pdf' }).expect(406);
    const missing = await reconciliationOf(stack, alice, randomUUID(), APRIL, { accept: XLSX });
    expect([missing.status, missing.headers['content-type']]).toEqual([404, expect.stringContaining('application/problem+json')]);
  });
});

describe('getReconciliationStatement properties', () => {
  const START = Date.parse('2027-06-01T00:00:00Z');
  const dayOf = (offset: number) => new Date(START + offset * 86_400_000).toISOString().slice(0, 10);
  const amount = fc.integer({ min: 1, max: 500_000 }).map((cents) => (cents / 100).toFixed(2));
  const party = fc.constantFrom<0 | 1>(0, 0, 1);
  const documentArb = fc.record({
    step: fc.integer({ min: 0, max: 3 }),
    party,
    action: fc.oneof(
      fc.record({ type: fc.constant('SALE' as const), amount, eur: fc.boolean() }),
      fc.record({ type: fc.constant('PURCHASE' as const), amount }),
      fc.record({ type: fc.constantFrom('PAY_IN' as const, 'PAY_OUT' as const), amount, allocate: fc.boolean() }),
      fc.record({ type: fc.constant('ALLOCATE' as const), which: fc.nat() }),
      fc.record({ type: fc.constant('CANCEL_INVOICE' as const), which: fc.nat() }),
      fc.record({ type: fc.constant('CANCEL_PAYMENT' as const), which: fc.nat() }),
      fc.record({ type: fc.constant('MANUAL' as const), amount, account: fc.constantFrom('4010', '6010', '6310', '4310', '6410', '9020'), debit: fc.boolean() }),
    ),
  });

  test('random documents of a customer who is also a supplier (sales, purchases, payments with and without allocations, advances allocated later, cancellations, manual entries on settlement and other accounts): for any range, the balances are the ledger\'s, opening + debit − credit = closing, and the lines add up to the turnovers and the running balance', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(documentArb, { minLength: 1, maxLength: 10 }), fc.nat(), fc.nat(), async (documents, a, b) => {
        const who = await registerWorkspace(stack);
        await saveTaxSettings(stack, who);
        const parties = [await aCounterparty(stack, who), await aCounterparty(stack, who)];
        const invoices = invoicesApi(stack, who);
        const payments = paymentsApi(stack, who);
        const posted: Array<{ party: number; invoices: string[]; payments: string[] }> = parties.map((_, party) => ({ party, invoices: [], payments: [] }));
        let day = 0;
        for (const [i, d] of documents.entries()) {
          day += d.step;
          const date = dayOf(day);
          const cp = parties[d.party]!;
          const mine = posted[d.party]!;
          const pick = (ids: string[], which: number) => ids[which % ids.length];
          const act = d.action;
          if (act.type === 'SALE' || act.type === 'PURCHASE') {
            const lines = [{ description: 'x', quantity: '1', unitPrice: act.amount, vatRate: null, ...(act.type === 'PURCHASE' ? { account: '1010' } : {}) }];
            const body = act.type === 'SALE' ? salesBody(cp, date, { lines, currency: act.eur ? 'EUR' : 'UZS' }) : purchaseBody(cp, date, `P-${i}`, { lines });
            const draft = (await invoices.create(body).expect(201)).body;
            mine.invoices.push((await invoices.post(draft.id).expect(200)).body.id);
          } else if (act.type === 'PAY_IN' || act.type === 'PAY_OUT') {
            const res = await payments.post({ direction: act.type === 'PAY_IN' ? 'IN' : 'OUT', date, counterpartyId: cp, amount: act.amount, ...(act.allocate ? { allocate: 'OLDEST_FIRST' } : {}) }).expect(201);
            mine.payments.push(res.body.id);
          } else if (act.type === 'ALLOCATE' && mine.payments.length > 0) {
            const res = await payments.allocate(pick(mine.payments, act.which)!, { date, allocate: 'OLDEST_FIRST' });
            expect([200, 409]).toContain(res.status);
          } else if (act.type === 'CANCEL_INVOICE' && mine.invoices.length > 0) {
            const res = await invoices.cancel(pick(mine.invoices, act.which)!, { requestId: randomUUID(), date, reason: 'property' });
            expect([200, 409]).toContain(res.status);
          } else if (act.type === 'CANCEL_PAYMENT' && mine.payments.length > 0) {
            expect([200, 409]).toContain((await payments.cancel(pick(mine.payments, act.which)!, date)).status);
          } else if (act.type === 'MANUAL') {
            const line = { accountCode: act.account, counterpartyId: cp, ...(act.debit ? { debit: act.amount } : { credit: act.amount }) };
            const other = { accountCode: '5110', ...(act.debit ? { credit: act.amount } : { debit: act.amount }) };
            await ledgerApi(stack, who).post(entryBody(date, [line, other], { description: `manual ${i}` })).expect(201);
          }
        }
        const [first, last] = [a % (day + 3), b % (day + 3)].sort((x, y) => x - y) as [number, number];
        const range = { from: dayOf(first), to: dayOf(last) };
        for (const cp of parties) {
          const statement = (await reconciliationOf(stack, who, cp, { ...range, size: 100 }).expect(200)).body;
          const sheet = await sheetFigures(stack, who, cp, range.from, range.to);
          const m = numericToMinorUnits;
          expect({ cp, ...range, opening: statement.openingBalance, debit: statement.turnoverDebit, credit: statement.turnoverCredit, closing: statement.closingBalance }).toEqual({
            cp, ...range, opening: sheet.opening, debit: sheet.turnoverDebit, credit: sheet.turnoverCredit, closing: sheet.closing,
          });
          expect(m(statement.openingBalance) + m(statement.turnoverDebit) - m(statement.turnoverCredit)).toBe(m(statement.closingBalance));
          let running = m(statement.openingBalance);
          for (const l of statement.lines as Array<{ debit: string; credit: string; balance: string }>) {
            running += m(l.debit) - m(l.credit);
            expect(l.balance).toBe(formatMinorUnits(running));
          }
          expect(formatMinorUnits(running)).toBe(statement.closingBalance);
          expect(statement.lines.length).toBe(statement.totalElements);
        }
      }),
      { numRuns: 12 },
    );
  }, 600_000);
});
