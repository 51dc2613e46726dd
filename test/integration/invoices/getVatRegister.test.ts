import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi } from '../../helpers/ledger';
import { storeCbuRate } from '../../helpers/currency';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { monthRange, type VatRegisterGroup } from '../../../core/invoices/vat-register';
import { vatRegisterBatch, type VatRegisterPosition } from '../../../db/repositories/invoices/vat-register';
import { withTenant } from '../../../db/connection';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';

// The monthly VAT register (getVatRegister) through the real app: rows per invoice and rate from the posted
// lines' UZS amounts, cancellations negated in their own month, and the tie: the register's VAT equals
// `ledgerVat` and the turnover sheet's turnover of 6410 (SALES) or 4410 (PURCHASES). This file's EUR rate is
// stored for 2026-03-02; its invoices are dated from March to September 2026.

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const EUR_RATE = '13912.37';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  await Promise.all([saveTaxSettings(stack, alice), saveTaxSettings(stack, bob), storeCbuRate(stack, 'EUR', '2026-03-02', EUR_RATE)]);
});
afterAll(async () => {
  await stack.stop();
});

type Side = 'SALES' | 'PURCHASES';
interface Line {
  vatRate: number | null;
  netUzs: string;
  vatUzs: string;
}
interface Invoice {
  id: string;
  number: string;
  date: string;
  lines: Line[];
}
interface Row {
  invoiceId: string;
  kind: 'ORIGINAL' | 'CANCELLATION';
  number: string;
  date: string;
  rate: number | null;
  net: string;
  vat: string;
  gross: string;
}

const registerOf = (who: Registered, month: string, side: Side, legalEntityId = who.me.company.id, page: Record<string, number> = {}) =>
  api(stack).get(`/api/v1/ledger/${legalEntityId}/reports/vat-register`).query({ month, side, ...page }).set(...bearer(who.accessToken));

async function posted(who: Registered, body: Record<string, unknown>): Promise<Invoice> {
  const invoices = invoicesApi(stack, who);
  const draft = (await invoices.create(body).expect(201)).body;
  return (await invoices.post(draft.id).expect(200)).body;
}

async function cancel(who: Registered, id: string, date: string): Promise<void> {
  await invoicesApi(stack, who).cancel(id, { requestId: randomUUID(), date, reason: 'VAT register test' }).expect(200);
}

/** The VAT account's turnover of the month in the turnover sheet, on the side the register counts it. */
async function sheetVat(who: Registered, month: string, side: Side): Promise<string> {
  const { from, to } = monthRange(month);
  const sheet = (await ledgerApi(stack, who).turnoverSheet(from, to).expect(200)).body;
  const row = sheet.rows.find((r: { accountCode: string }) => r.accountCode === (side === 'SALES' ? '6410' : '4410'));
  if (!row) return '0.00';
  const net = numericToMinorUnits(row.turnoverCredit) - numericToMinorUnits(row.turnoverDebit);
  return formatMinorUnits(side === 'SALES' ? net : -net);
}

/** [number, kind, date, rate, net, vat, gross] of each row. */
const brief = (rows: Row[]) => rows.map((r) => [r.number, r.kind, r.date, r.rate, r.net, r.vat, r.gross]);

/** The rows an invoice makes: its posted lines summed per rate (numerically, exempt last), negated for a cancellation. */
function expectedRows(invoice: Invoice, kind: Row['kind'], date: string): Array<Pick<Row, 'invoiceId' | 'kind' | 'date' | 'rate' | 'net' | 'vat' | 'gross'>> {
  const byRate = new Map<number | null, { net: bigint; vat: bigint }>();
  for (const l of invoice.lines) {
    const s = byRate.get(l.vatRate) ?? { net: 0n, vat: 0n };
    s.net += numericToMinorUnits(l.netUzs);
    s.vat += numericToMinorUnits(l.vatUzs);
    byRate.set(l.vatRate, s);
  }
  const sign = kind === 'CANCELLATION' ? -1n : 1n;
  return [...byRate.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a - b))
    .map(([rate, s]) => ({ invoiceId: invoice.id, kind, date, rate, net: formatMinorUnits(sign * s.net), vat: formatMinorUnits(sign * s.vat), gross: formatMinorUnits(sign * (s.net + s.vat)) }));
}

describe('getVatRegister', () => {
  let customer: string;
  let individual: string;
  let supplier: string;
  let eurInvoice: Invoice;
  let cancelledLater: Invoice;
  let bobsInvoice: Invoice;
  let draftId: string;

  beforeAll(async () => {
    customer = await aCounterparty(stack, alice, { name: 'Customer One', tin: '301234567', vatRegistrationCode: '326010012345' });
    individual = await aCounterparty(stack, alice, { name: 'Individual Two', pinfl: '31234567890123' });
    supplier = await aCounterparty(stack, alice, { name: 'Supplier Three', tin: '302345678', vatRegistrationCode: '326020054321' });
    // 2026-000001: 12 % (3000 + 500), 15 % and exempt lines.
    await posted(alice, {
      ...salesBody(customer, '2026-03-05'),
      lines: [
        { description: 'Widgets', quantity: '3', unitPrice: '1000' },
        { description: 'Service', quantity: '1', unitPrice: '200', vatRate: 15, account: '9030' },
        { description: 'Books', quantity: '2', unitPrice: '250', vatRate: null },
        { description: 'More widgets', quantity: '1', unitPrice: '500', vatRate: 12 },
      ],
    });
    // 2026-000002 in EUR: 3 × 33.33 = 99.99 EUR, VAT 11.9988 → 12.00 EUR; at 13912.37 the VAT is 166948.44
    // UZS, the gross 111.99 EUR 1558046.32 UZS, the net the rest, 1391097.88.
    eurInvoice = await posted(alice, { ...salesBody(individual, '2026-03-20'), currency: 'EUR', lines: [{ description: 'Consulting', quantity: '3', unitPrice: '33.33' }] });
    // 2026-000003, cancelled in April; 2026-000004, cancelled in March.
    cancelledLater = await posted(alice, { ...salesBody(customer, '2026-03-25'), lines: [{ description: 'Machine', quantity: '1', unitPrice: '10000' }] });
    await cancel(alice, cancelledLater.id, '2026-04-02');
    const cancelledSameMonth = await posted(alice, { ...salesBody(customer, '2026-03-28'), lines: [{ description: 'Repair', quantity: '1', unitPrice: '100', vatRate: 15 }] });
    await cancel(alice, cancelledSameMonth.id, '2026-03-30');
    draftId = (await invoicesApi(stack, alice).create(salesBody(customer, '2026-03-15')).expect(201)).body.id;
    await posted(alice, purchaseBody(supplier, '2026-03-07', 'INV-77', {
      lines: [
        { description: 'Steel', quantity: '10', unitPrice: '100', account: '1010' },
        { description: 'Delivery', quantity: '1', unitPrice: '300', account: '1010', vatRate: null },
      ],
    }));
    bobsInvoice = await posted(bob, salesBody(await aCounterparty(stack, bob), '2026-03-10'));
  });

  test('sales of a month: a row per invoice and rate in UZS, a foreign invoice at its posted amounts, an invoice cancelled in the month twice, drafts never; totals per rate and in all; ledgerVat and the 6410 turnover are the VAT', async () => {
    const res = await registerOf(alice, '2026-03', 'SALES').expect(200);
    expect(res.body).toMatchObject({ month: '2026-03', side: 'SALES' });
    expect(brief(res.body.rows)).toEqual([
      ['2026-000001', 'ORIGINAL', '2026-03-05', 12, '3500.00', '420.00', '3920.00'],
      ['2026-000001', 'ORIGINAL', '2026-03-05', 15, '200.00', '30.00', '230.00'],
      ['2026-000001', 'ORIGINAL', '2026-03-05', null, '500.00', '0.00', '500.00'],
      ['2026-000002', 'ORIGINAL', '2026-03-20', 12, '1391097.88', '166948.44', '1558046.32'],
      ['2026-000003', 'ORIGINAL', '2026-03-25', 12, '10000.00', '1200.00', '11200.00'],
      ['2026-000004', 'ORIGINAL', '2026-03-28', 15, '100.00', '15.00', '115.00'],
      ['2026-000004', 'CANCELLATION', '2026-03-30', 15, '-100.00', '-15.00', '-115.00'],
    ]);
    // The foreign invoice's row is its posted lines' UZS amounts; the invoice's currency is named.
    expect(res.body.rows[3]).toEqual({
      invoiceId: eurInvoice.id,
      kind: 'ORIGINAL',
      number: '2026-000002',
      date: '2026-03-20',
      counterpartyId: individual,
      counterpartyName: 'Individual Two',
      counterpartyTin: '31234567890123',
      vatRegistrationCode: null,
      currency: 'EUR',
      rate: 12,
      net: eurInvoice.lines[0]!.netUzs,
      vat: eurInvoice.lines[0]!.vatUzs,
      gross: '1558046.32',
    });
    expect(res.body.rows[0]).toMatchObject({ counterpartyId: customer, counterpartyName: 'Customer One', counterpartyTin: '301234567', vatRegistrationCode: '326010012345', currency: 'UZS' });
    expect(res.body.rows.map((r: Row) => r.invoiceId)).not.toContain(draftId);
    expect(res.body.totalsByRate).toEqual([
      { rate: 12, net: '1404597.88', vat: '168568.44', gross: '1573166.32' },
      { rate: 15, net: '200.00', vat: '30.00', gross: '230.00' },
      { rate: null, net: '500.00', vat: '0.00', gross: '500.00' },
    ]);
    expect(res.body.totals).toEqual({ net: '1405297.88', vat: '168598.44', gross: '1573896.32' });
    expect(res.body.ledgerVat).toBe('168598.44');
    expect(await sheetVat(alice, '2026-03', 'SALES')).toBe('168598.44');
  });

  test('an invoice cancelled in a later month: its original rows in its own month, its negative rows dated the cancellation in the later one', async () => {
    const res = await registerOf(alice, '2026-04', 'SALES').expect(200);
    expect(res.body.rows).toEqual([
      {
        invoiceId: cancelledLater.id,
        kind: 'CANCELLATION',
        number: '2026-000003',
        date: '2026-04-02',
        counterpartyId: customer,
        counterpartyName: 'Customer One',
        counterpartyTin: '301234567',
        vatRegistrationCode: '326010012345',
        currency: 'UZS',
        rate: 12,
        net: '-10000.00',
        vat: '-1200.00',
        gross: '-11200.00',
      },
    ]);
    expect(res.body.totalsByRate).toEqual([{ rate: 12, net: '-10000.00', vat: '-1200.00', gross: '-11200.00' }]);
    expect([res.body.totals.vat, res.body.ledgerVat, await sheetVat(alice, '2026-04', 'SALES')]).toEqual(['-1200.00', '-1200.00', '-1200.00']);
  });

  test('purchases of the month: the supplier invoices by rate; ledgerVat and the 4410 turnover are the VAT; a month without invoices is empty', async () => {
    const res = await registerOf(alice, '2026-03', 'PURCHASES').expect(200);
    expect(brief(res.body.rows)).toEqual([
      ['INV-77', 'ORIGINAL', '2026-03-07', 12, '1000.00', '120.00', '1120.00'],
      ['INV-77', 'ORIGINAL', '2026-03-07', null, '300.00', '0.00', '300.00'],
    ]);
    expect(res.body.rows[0]).toMatchObject({ counterpartyId: supplier, counterpartyTin: '302345678', vatRegistrationCode: '326020054321' });
    expect(res.body.totals).toEqual({ net: '1300.00', vat: '120.00', gross: '1420.00' });
    expect([res.body.ledgerVat, await sheetVat(alice, '2026-03', 'PURCHASES')]).toEqual(['120.00', '120.00']);
    const empty = await registerOf(alice, '2026-05', 'PURCHASES').expect(200);
    expect(empty.body).toEqual({
      month: '2026-05',
      side: 'PURCHASES',
      rows: [],
      totalsByRate: [],
      totals: { net: '0.00', vat: '0.00', gross: '0.00' },
      ledgerVat: '0.00',
      page: 0,
      size: 50,
      totalElements: 0,
      totalPages: 0,
    });
  });

  test("another company's invoices never appear, and its register is 404 to anyone outside it", async () => {
    const alices = await registerOf(alice, '2026-03', 'SALES').expect(200);
    expect(alices.body.rows.map((r: Row) => r.invoiceId)).not.toContain(bobsInvoice.id);
    const bobs = await registerOf(bob, '2026-03', 'SALES').expect(200);
    expect(bobs.body.rows.map((r: Row) => [r.invoiceId, r.net, r.vat])).toEqual([[bobsInvoice.id, '1000.00', '120.00']]);
    expect(bobs.body.ledgerVat).toBe('120.00');
    expect((await registerOf(alice, '2026-03', 'SALES', bob.me.company.id).expect(404)).body.type).toBe('/problems/not-found');
  });

  test('as CSV: the header of the JSON field names and a row per register row, free text guarded; as XLSX the same rows, amounts as numbers; another type is 406', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who, { name: '=SUM(1;2), "Acme"', tin: '303456789' });
    const invoice = await posted(who, { ...salesBody(cp, '2026-06-15'), lines: [{ description: 'Goods', quantity: '2', unitPrice: '1250.50', vatRate: 12.5 }] });
    const path = `/api/v1/ledger/${who.me.company.id}/reports/vat-register`;
    const csv = await api(stack).get(path).query({ month: '2026-06', side: 'SALES' }).set(...bearer(who.accessToken)).set('Accept', CSV).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="vat-register-${who.me.company.id}-2026-06-sales.csv"`);
    const [header, ...rows] = csv.text.trimEnd().split('\n');
    expect(header).toBe('invoiceId,kind,number,date,counterpartyId,counterpartyName,counterpartyTin,vatRegistrationCode,currency,rate,net,vat,gross');
    expect(rows).toHaveLength(1);
    const records = await new Promise<Record<string, string>[]>((resolve, reject) =>
      parse(csv.text, { columns: true }, (err, parsed: Record<string, string>[]) => (err ? reject(err) : resolve(parsed))),
    );
    // 2 × 1250.50 = 2501.00; 12.5 % = 312.625 → 312.63.
    expect(records).toEqual([
      {
        invoiceId: invoice.id,
        kind: 'ORIGINAL',
        number: '2026-000001',
        date: '2026-06-15',
        counterpartyId: cp,
        counterpartyName: `'=SUM(1;2), "Acme"`,
        counterpartyTin: '303456789',
        vatRegistrationCode: '',
        currency: 'UZS',
        rate: '12.5',
        net: '2501.00',
        vat: '312.63',
        gross: '2813.63',
      },
    ]);
    const xlsx = await api(stack)
      .get(path)
      .query({ month: '2026-06', side: 'SALES' })
      .set(...bearer(who.accessToken))
      .set('Accept', XLSX)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(xlsx.headers['content-disposition']).toBe(`attachment; filename="vat-register-${who.me.company.id}-2026-06-sales.xlsx"`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.body as never);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.name).toBe('VAT register');
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(header!.split(','));
    expect((sheet.getRow(2).values as unknown[]).slice(1)).toEqual([invoice.id, 'ORIGINAL', '2026-000001', '2026-06-15', cp, '=SUM(1;2), "Acme"', '303456789', undefined, 'UZS', 12.5, 2501, 312.63, 2813.63]);
    expect(sheet.rowCount).toBe(2);
    const refused = await api(stack).get(path).query({ month: '2026-06', side: 'SALES' }).set(...bearer(who.accessToken)).set('Accept', 'application/pdf').expect(406);
    expect(refused.body.type).toBe('/problems/not-acceptable');
  });

  test('pages: the rows in order a page at a time, every page with the whole month\'s totals and ledgerVat; the export has them all, read in keyset batches of whole invoices', async () => {
    const all = (await registerOf(alice, '2026-03', 'SALES').expect(200)).body;
    expect(all).toMatchObject({ page: 0, size: 50, totalElements: 7, totalPages: 1 });
    const pages = [];
    for (let page = 0; page < 3; page++) pages.push((await registerOf(alice, '2026-03', 'SALES', alice.me.company.id, { page, size: 3 }).expect(200)).body);
    expect(pages.map((p) => [p.page, p.size, p.totalElements, p.totalPages, p.rows.length])).toEqual([[0, 3, 7, 3, 3], [1, 3, 7, 3, 3], [2, 3, 7, 3, 1]]);
    expect(pages.flatMap((p) => p.rows)).toEqual(all.rows);
    for (const p of pages) expect([p.totalsByRate, p.totals, p.ledgerVat]).toEqual([all.totalsByRate, all.totals, all.ledgerVat]);
    const csv = await api(stack).get(`/api/v1/ledger/${alice.me.company.id}/reports/vat-register`).query({ month: '2026-03', side: 'SALES', page: 1, size: 1 })
      .set(...bearer(alice.accessToken)).set('Accept', CSV).expect(200);
    const records = await new Promise<Record<string, string>[]>((resolve, reject) =>
      parse(csv.text, { columns: true }, (err, parsed: Record<string, string>[]) => (err ? reject(err) : resolve(parsed))),
    );
    expect(records.map((r) => [r.invoiceId, r.kind, r.date, r.rate, r.net, r.vat, r.gross])).toEqual(
      all.rows.map((r: Row) => [r.invoiceId, r.kind, r.date, r.rate === null ? '' : String(r.rate), r.net, r.vat, r.gross]),
    );
    // Batches of two invoices: 2026-000001 (three rates) and 000002, then 000003 and 000004's original, then its cancellation.
    const scope = { tenantId: alice.me.tenantId, legalEntityId: alice.me.company.id };
    const batches: string[][] = [];
    let after: VatRegisterPosition | null = null;
    for (;;) {
      const groups: VatRegisterGroup[] = await withTenant(stack.db, scope.tenantId, (tx) => vatRegisterBatch(tx, scope, { kind: 'SALES', from: '2026-03-01', to: '2026-03-31', after, limit: 2 }));
      if (groups.length === 0) break;
      batches.push(groups.map((g) => `${g.number} ${g.kind} ${g.rate}`));
      const last = groups[groups.length - 1]!;
      after = { date: last.date, number: last.number, invoiceId: last.invoiceId, cancellation: last.kind === 'CANCELLATION' };
    }
    expect(batches).toEqual([
      ['2026-000001 ORIGINAL 12.00', '2026-000001 ORIGINAL 15.00', '2026-000001 ORIGINAL null', '2026-000002 ORIGINAL 12.00'],
      ['2026-000003 ORIGINAL 12.00', '2026-000004 ORIGINAL 15.00'],
      ['2026-000004 CANCELLATION 15.00'],
    ]);
  });

  test('a month that is not YYYY-MM from 1900-01 to 9999-12, a side that is not SALES or PURCHASES, or either missing is 400; the bounds answer', async () => {
    const path = `/api/v1/ledger/${alice.me.company.id}/reports/vat-register`;
    const cases: Array<Record<string, string>> = [
      ...['2026-13', '2026-00', '2026-3', '26-03', '2026-03-01', '2026/03', '', '1899-12', '0000-01'].map((month) => ({ month, side: 'SALES' })),
      { month: '2026-03', side: 'PURCHASE' },
      { month: '2026-03', side: 'sales' },
      { month: '2026-03' },
      { side: 'SALES' },
      { month: '2026-03', side: 'SALES', from: '2026-03-01' },
      { month: '2026-03', side: 'SALES', size: '101' },
      { month: '2026-03', side: 'SALES', page: '-1' },
    ];
    for (const query of cases) {
      const res = await api(stack).get(path).query(query).set(...bearer(alice.accessToken));
      expect({ query, status: res.status, type: res.body.type }).toEqual({ query, status: 400, type: '/problems/validation' });
    }
    for (const month of ['1900-01', '9999-12']) {
      const res = await registerOf(alice, month, 'SALES').expect(200);
      expect(res.body).toMatchObject({ month, rows: [], ledgerVat: '0.00' });
    }
  });
});

describe('getVatRegister properties', () => {
  const MONTHS = ['2026-05', '2026-06', '2026-07', '2026-08', '2026-09'];
  const lineArb = fc.record({
    quantity: fc.integer({ min: 1, max: 50 }),
    cents: fc.integer({ min: 1, max: 5_000_000 }),
    vatRate: fc.constantFrom<number | null | undefined>(12, 15, 0, 12.5, null, undefined),
  });
  const invoiceArb = fc.record({
    kind: fc.constantFrom('SALES' as const, 'PURCHASE' as const),
    month: fc.integer({ min: 0, max: 2 }),
    day: fc.integer({ min: 1, max: 28 }),
    currency: fc.constantFrom('UZS', 'UZS', 'EUR'),
    lines: fc.array(lineArb, { minLength: 1, maxLength: 4 }),
    cancellation: fc.option(fc.record({ later: fc.integer({ min: 0, max: 2 }), day: fc.integer({ min: 1, max: 28 }) }), { nil: undefined }),
  });
  const dayOf = (month: number, day: number) => `${MONTHS[month]}-${String(day).padStart(2, '0')}`;

  test('random invoices (random lines and rates, UZS and EUR, some cancelled in random later months): in every month and on both sides totals.vat == ledgerVat == the VAT account\'s turnover == the posted VAT of the month\'s invoices less the cancelled', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(invoiceArb, { minLength: 1, maxLength: 6 }), async (generated) => {
        const who = await registerWorkspace(stack);
        await saveTaxSettings(stack, who);
        const cp = await aCounterparty(stack, who);
        /** The posted VAT expected per side and month, in minor units. */
        const expected = new Map<string, bigint>();
        const add = (side: Side, month: string, vat: bigint) => expected.set(`${side} ${month}`, (expected.get(`${side} ${month}`) ?? 0n) + vat);
        for (const [i, g] of generated.entries()) {
          const date = dayOf(g.month, g.day);
          const lines = g.lines.map((l, j) => ({
            description: `line ${j + 1}`,
            quantity: String(l.quantity),
            unitPrice: (l.cents / 100).toFixed(2),
            ...(g.kind === 'PURCHASE' ? { account: '1010' } : {}),
            ...(l.vatRate === undefined ? {} : { vatRate: l.vatRate }),
          }));
          const body = g.kind === 'SALES' ? salesBody(cp, date, { lines, currency: g.currency }) : purchaseBody(cp, date, `P-${i}`, { lines, currency: g.currency });
          const invoice = await posted(who, body);
          const side: Side = g.kind === 'SALES' ? 'SALES' : 'PURCHASES';
          const vat = invoice.lines.reduce((s, l) => s + numericToMinorUnits(l.vatUzs), 0n);
          add(side, date.slice(0, 7), vat);
          if (g.cancellation) {
            const month = Math.min(g.month + g.cancellation.later, MONTHS.length - 1);
            const cancelDate = dayOf(month, month === g.month ? Math.max(g.day, g.cancellation.day) : g.cancellation.day);
            await cancel(who, invoice.id, cancelDate);
            add(side, cancelDate.slice(0, 7), -vat);
          }
        }
        for (const month of MONTHS) {
          for (const side of ['SALES', 'PURCHASES'] as const) {
            const register = (await registerOf(who, month, side).expect(200)).body;
            const want = formatMinorUnits(expected.get(`${side} ${month}`) ?? 0n);
            expect({ month, side, totals: register.totals.vat, ledger: register.ledgerVat, sheet: await sheetVat(who, month, side) }).toEqual({ month, side, totals: want, ledger: want, sheet: want });
          }
        }
      }),
      { numRuns: 10 },
    );
  }, 300_000);

  test('each invoice of the month has its rows, per rate, as its posted lines sum them', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const sample = fc.sample(fc.array(lineArb, { minLength: 1, maxLength: 6 }), { numRuns: 5, seed: 2026 });
    const invoices: Invoice[] = [];
    for (const [i, lines] of sample.entries()) {
      invoices.push(await posted(who, {
        ...salesBody(cp, `2026-09-${String(10 + i).padStart(2, '0')}`),
        currency: i % 2 === 0 ? 'EUR' : 'UZS',
        lines: lines.map((l) => ({ description: 'x', quantity: String(l.quantity), unitPrice: (l.cents / 100).toFixed(2), ...(l.vatRate === undefined ? {} : { vatRate: l.vatRate }) })),
      }));
    }
    await cancel(who, invoices[1]!.id, '2026-09-28');
    const register = (await registerOf(who, '2026-09', 'SALES').expect(200)).body;
    // The company's rate (12) is what a line without vatRate took: the posted invoice says so.
    const want = [
      ...invoices.flatMap((inv) => expectedRows(inv, 'ORIGINAL', inv.date)),
      ...expectedRows(invoices[1]!, 'CANCELLATION', '2026-09-28'),
    ].sort((a, b) => (a.date === b.date ? 0 : a.date < b.date ? -1 : 1));
    expect(register.rows.map((r: Row) => ({ invoiceId: r.invoiceId, kind: r.kind, date: r.date, rate: r.rate, net: r.net, vat: r.vat, gross: r.gross }))).toEqual(want);
    expect(register.ledgerVat).toBe(register.totals.vat);
  });
});
