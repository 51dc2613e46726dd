import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { storeCbuRate } from '../../helpers/currency';
import { updateCounterparty } from '../../helpers/counterparties';
import { aCounterparty, invoiceEvents, invoicesApi, purchaseBody, saveTaxSettings, salesBody } from '../../helpers/invoices';

let stack: TestStack;
let alice: Registered;
let bob: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  [alice, bob] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  await Promise.all([saveTaxSettings(stack, alice), saveTaxSettings(stack, bob)]);
});
afterAll(async () => {
  await stack.stop();
});

const balanceOf = (tb: { lines: Array<{ code: string; balance: string }> }, code: string) => tb.lines.find((l) => l.code === code)?.balance ?? '0.00';

describe('drafts (createInvoice, updateInvoice, deleteInvoice, getInvoice)', () => {
  test('when a sales draft has lines with the default, an own and no VAT rate, then each line is net half-up, VAT half-up per line, gross; totals are sums; nothing is posted', async () => {
    const invoices = invoicesApi(stack, alice);
    const customer = await aCounterparty(stack, alice, { paymentTermsDays: 30 });
    const res = await invoices
      .create({
        kind: 'SALES',
        date: '2026-03-10',
        counterpartyId: customer,
        lines: [
          { description: 'Widgets', quantity: '3', unitPrice: '333.3350' },
          { description: 'Service', quantity: '1.5', unitPrice: '100.01', vatRate: 15, account: '9030' },
          { description: 'Exempt books', quantity: '2', unitPrice: '50', vatRate: null, catalogCode: '04901001001000000' },
        ],
      })
      .expect(201);
    // 3 × 333.335 = 1000.005 → 1000.01; VAT 12 % = 120.0012 → 120.00. 1.5 × 100.01 = 150.015 → 150.02; 15 % = 22.503 → 22.50.
    expect(res.body).toMatchObject({
      kind: 'SALES',
      status: 'DRAFT',
      number: null,
      date: '2026-03-10',
      dueDate: '2026-04-09',
      currency: 'UZS',
      totalNet: '1250.03',
      totalVat: '142.50',
      totalGross: '1392.53',
      allocated: '0.00',
      outstanding: '1392.53',
      entryId: null,
      version: 1,
    });
    expect(res.body.lines).toEqual([
      { lineNo: 1, description: 'Widgets', quantity: '3', unitPrice: '333.335', account: '9020', vatRate: 12, catalogCode: null, net: '1000.01', vat: '120.00', gross: '1120.01', netUzs: null, vatUzs: null },
      { lineNo: 2, description: 'Service', quantity: '1.5', unitPrice: '100.01', account: '9030', vatRate: 15, catalogCode: null, net: '150.02', vat: '22.50', gross: '172.52', netUzs: null, vatUzs: null },
      { lineNo: 3, description: 'Exempt books', quantity: '2', unitPrice: '50', account: '9020', vatRate: null, catalogCode: '04901001001000000', net: '100.00', vat: '0.00', gross: '100.00', netUzs: null, vatUzs: null },
    ]);
    expect((await invoices.get(res.body.id).expect(200)).body).toEqual(res.body);
    const [{ n }] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_entries WHERE tenant_id = :t', { replacements: { t: alice.me.tenantId }, type: QueryTypes.SELECT });
    expect(n).toBe(0);
  });

  test('bad drafts are 400 and store nothing: a purchase without number, a sales invoice with one, a purchase line without account, an unknown or header account, a line on an account the posting writes itself (6410, 4410), an unknown counterparty, quantity 0, a rate with three decimals or above 100, 501 lines, a due date before the date', async () => {
    const invoices = invoicesApi(stack, bob);
    const cp = await aCounterparty(stack, bob);
    const line = { description: 'x', quantity: '1', unitPrice: '1' };
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ kind: 'PURCHASE', date: '2026-01-05', counterpartyId: cp, lines: [{ ...line, account: '1010' }] }, 'validation', '/body/number'],
      [{ ...salesBody(cp, '2026-01-05'), number: 'S-1' }, 'validation', '/body/number'],
      [{ kind: 'PURCHASE', number: 'P-1', date: '2026-01-05', counterpartyId: cp, lines: [line] }, 'validation', '/body/lines/0/account'],
      [{ ...salesBody(cp, '2026-01-05'), lines: [{ ...line, account: '9999' }] }, 'unknown-account', '/body/lines/0/account'],
      [{ ...salesBody(cp, '2026-01-05'), lines: [{ ...line, account: '9000' }] }, 'header-account', '/body/lines/0/account'],
      [{ ...salesBody(cp, '2026-01-05'), lines: [{ ...line, account: '6410' }] }, 'validation', '/body/lines/0/account'],
      [{ kind: 'PURCHASE', number: 'P-2', date: '2026-01-05', counterpartyId: cp, lines: [{ ...line, account: '4410' }] }, 'validation', '/body/lines/0/account'],
      [salesBody(randomUUID(), '2026-01-05'), 'unknown-counterparty', '/body/counterpartyId'],
      [{ ...salesBody(cp, '2026-01-05'), lines: [{ ...line, quantity: '0' }] }, 'validation', '/body/lines/0/quantity'],
      [{ ...salesBody(cp, '2026-01-05'), lines: [{ ...line, quantity: '1.0001' }] }, 'validation', '/body/lines/0/quantity'],
      [{ ...salesBody(cp, '2026-01-05'), lines: [{ ...line, vatRate: 12.345 }] }, 'validation', '/body/lines/0/vatRate'],
      [{ ...salesBody(cp, '2026-01-05'), lines: [{ ...line, vatRate: 100.01 }] }, 'validation', '/body/lines/0/vatRate'],
      [{ ...salesBody(cp, '2026-01-05'), lines: Array.from({ length: 501 }, () => line) }, 'validation', '/body/lines'],
      [{ ...salesBody(cp, '2026-01-05'), dueDate: '2026-01-04' }, 'validation', '/body/dueDate'],
      [{ ...salesBody(cp, '2026-01-05'), currency: 'XYZ' }, 'validation', '/body/currency'],
    ];
    for (const [body, type, path] of cases) {
      const res = await invoices.create(body).expect(400);
      expect({ type: res.body.type, paths: (res.body.errors ?? []).map((e: { path: string }) => e.path.replace(/\.(\w+)/g, '/$1')) }).toEqual({ type: `/problems/${type}`, paths: expect.arrayContaining([expect.stringContaining(path)]) });
    }
    // The boundaries themselves are fine: 500 lines, quantity with three decimals, rates 0 and 100.
    await invoices.create({ ...salesBody(cp, '2026-01-05'), lines: Array.from({ length: 500 }, (_, i) => ({ ...line, quantity: '0.001', unitPrice: '10', vatRate: i % 2 === 0 ? 0 : 100 })) }).expect(201);
    expect((await invoices.list({ size: 100 }).expect(200)).body.totalElements).toBe(1);
  });

  test('a vatRate of two decimals (12.5, 12.55) is taken and computed half-up per line, as 0 and 100 are beside it; below 0 (-1) it is 400 on the line', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const res = await invoices
      .create({
        ...salesBody(cp, '2026-02-03'),
        lines: [
          { description: 'Zero', quantity: '1', unitPrice: '100', vatRate: 0 },
          { description: 'Full', quantity: '1', unitPrice: '100', vatRate: 100 },
          { description: 'Half', quantity: '1', unitPrice: '100.01', vatRate: 12.5 },
          { description: 'Two places', quantity: '0.001', unitPrice: '1234567.8901', vatRate: 12.55 },
        ],
      })
      .expect(201);
    // 100.01 × 12.5 % = 12.50125 → 12.50. 0.001 × 1234567.8901 = 1234.5678901 → 1234.57; × 12.55 % = 154.93853… → 154.94.
    expect(res.body.lines.map((l: Record<string, unknown>) => [l.quantity, l.vatRate, l.net, l.vat, l.gross])).toEqual([
      ['1', 0, '100.00', '0.00', '100.00'],
      ['1', 100, '100.00', '100.00', '200.00'],
      ['1', 12.5, '100.01', '12.50', '112.51'],
      ['0.001', 12.55, '1234.57', '154.94', '1389.51'],
    ]);
    expect(res.body).toMatchObject({ totalNet: '1534.58', totalVat: '267.44', totalGross: '1802.02' });
    const refused = await invoices.create({ ...salesBody(cp, '2026-02-03'), lines: [{ description: 'x', quantity: '1', unitPrice: '1', vatRate: -1 }] }).expect(400);
    expect(refused.body).toMatchObject({ type: '/problems/validation', errors: expect.arrayContaining([expect.objectContaining({ path: '/body/lines/0/vatRate' })]) });
    expect((await invoices.list().expect(200)).body.totalElements).toBe(1);
  });

  test('a draft replaced (PUT) holds the same boundaries: 500 lines taken, 501 refused; a rate of 100.01 refused; another company\'s counterparty is 400 unknown-counterparty; a refused replacement changes nothing', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const bobsCustomer = await aCounterparty(stack, bob);
    const invoices = invoicesApi(stack, who);
    const draft = (await invoices.create(salesBody(cp, '2026-02-04')).expect(201)).body;
    const line = { description: 'x', quantity: '0.001', unitPrice: '10' };
    const replacement = (lines: unknown[], counterpartyId = cp) => ({ date: '2026-02-04', counterpartyId, lines, expectedVersion: 1 });
    for (const [body, type, path] of [
      [replacement(Array.from({ length: 501 }, () => line)), 'validation', '/body/lines'],
      [replacement([{ ...line, vatRate: 100.01 }]), 'validation', '/body/lines/0/vatRate'],
      [replacement([line], bobsCustomer), 'unknown-counterparty', '/body/counterpartyId'],
    ] as const) {
      const res = await invoices.update(draft.id, body);
      expect({ status: res.status, type: res.body.type, paths: (res.body.errors ?? []).map((e: { path: string }) => e.path) }).toEqual({
        status: 400,
        type: `/problems/${type}`,
        paths: expect.arrayContaining([expect.stringContaining(path)]),
      });
    }
    expect((await invoices.get(draft.id).expect(200)).body).toEqual(draft);
    const replaced = await invoices.update(draft.id, replacement(Array.from({ length: 500 }, () => line))).expect(200);
    expect(replaced.body).toMatchObject({ version: 2, totalNet: '5.00' });
    expect(replaced.body.lines).toHaveLength(500);
  });

  test('under the SIMPLIFIED regime a line carries no VAT: left out means none, a rate is 400', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who, { taxRegime: 'SIMPLIFIED', vatRate: 0 });
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const ok = await invoices.create(salesBody(cp, '2026-01-05')).expect(201);
    expect(ok.body).toMatchObject({ totalVat: '0.00', totalGross: '1000.00' });
    expect(ok.body.lines[0].vatRate).toBeNull();
    const refused = await invoices.create({ ...salesBody(cp, '2026-01-05'), lines: [{ description: 'x', quantity: '1', unitPrice: '1', vatRate: 12 }] }).expect(400);
    expect(refused.body.errors[0].path).toBe('/body/lines/0/vatRate');
  });

  test('a draft is replaced at its version (409 stale-version otherwise), and deleted; both with audit events', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const draft = (await invoices.create(salesBody(cp, '2026-02-01')).expect(201)).body;
    const replaced = await invoices
      .update(draft.id, { date: '2026-02-02', counterpartyId: cp, lines: [{ description: 'Two', quantity: '2', unitPrice: '10' }], expectedVersion: 1 })
      .expect(200);
    expect(replaced.body).toMatchObject({ version: 2, date: '2026-02-02', totalGross: '22.40', lines: [expect.objectContaining({ description: 'Two' })] });
    const stale = await invoices.update(draft.id, { date: '2026-02-02', counterpartyId: cp, lines: [{ description: 'Three', quantity: '3', unitPrice: '10' }], expectedVersion: 1 }).expect(409);
    expect(stale.body.type).toBe('/problems/stale-version');
    await invoices.remove(draft.id).expect(204);
    await invoices.get(draft.id).expect(404);
    expect((await invoiceEvents(stack, who)).map((e) => e.action)).toEqual(['invoice.created', 'invoice.updated', 'invoice.deleted']);
  });

  test("another company's invoice or counterparty is 404, whoever asks", async () => {
    const bobs = invoicesApi(stack, bob);
    const bobsCustomer = await aCounterparty(stack, bob);
    const draft = (await bobs.create(salesBody(bobsCustomer, '2026-01-10')).expect(201)).body;
    await invoicesApi(stack, alice).get(draft.id).expect(404);
    await invoicesApi(stack, alice, bob.me.company.id, alice.accessToken).get(draft.id).expect(404);
    const res = await invoicesApi(stack, alice).create(salesBody(bobsCustomer, '2026-01-10')).expect(400);
    expect(res.body.type).toBe('/problems/unknown-counterparty');
  });

  test("a purchase invoice's number is unique per supplier among invoices not cancelled: 409 supplier-number-exists; another supplier may use it", async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const [s1, s2] = [await aCounterparty(stack, who), await aCounterparty(stack, who)];
    const invoices = invoicesApi(stack, who);
    const first = (await invoices.create(purchaseBody(s1, '2026-01-10', 'INV-7')).expect(201)).body;
    const dup = await invoices.create(purchaseBody(s1, '2026-01-11', 'INV-7')).expect(409);
    expect(dup.body).toMatchObject({ type: '/problems/supplier-number-exists', number: 'INV-7' });
    await invoices.create(purchaseBody(s2, '2026-01-11', 'INV-7')).expect(201);
    // Once the first is posted and cancelled, the supplier's invoice may be entered again.
    await invoices.post(first.id).expect(200);
    await invoices.cancel(first.id, { requestId: randomUUID(), date: '2026-01-12', reason: 'entered with the wrong amount' }).expect(200);
    await invoices.create(purchaseBody(s1, '2026-01-12', 'INV-7')).expect(201);
  });
});

describe('postInvoice and cancelInvoice', () => {
  test('when a sales invoice is posted, then one balanced entry Dr 4010 gross (the customer) / Cr revenue net / Cr 6410 VAT, linked both ways, numbered 2026-000001; posting again answers the same', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const ledger = ledgerApi(stack, who);
    const draft = (await invoices.create({ ...salesBody(cp, '2026-05-20'), lines: [{ description: 'A', quantity: '10', unitPrice: '1000' }, { description: 'B', quantity: '1', unitPrice: '500', account: '9030' }] }).expect(201)).body;
    const posted = await invoices.post(draft.id).expect(200);
    expect(posted.body).toMatchObject({ status: 'POSTED', number: '2026-000001', totalGross: '11760.00', grossUzs: '11760.00', vatUzs: '1260.00', outstanding: '11760.00', version: 2 });
    expect(posted.body.lines.map((l: { netUzs: string; vatUzs: string }) => [l.netUzs, l.vatUzs])).toEqual([['10000.00', '1200.00'], ['500.00', '60.00']]);
    const entry = (await ledger.get(posted.body.entryId).expect(200)).body;
    expect(entry).toMatchObject({ entryDate: '2026-05-20', reference: '2026-000001', source: { type: 'INVOICE', id: draft.id }, totalDebit: '11760.00' });
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.counterpartyId])).toEqual([
      ['4010', '11760.00', '0.00', cp],
      ['9020', '0.00', '10000.00', null],
      ['9030', '0.00', '500.00', null],
      ['6410', '0.00', '1260.00', null],
    ]);
    expect((await invoices.post(draft.id).expect(200)).body).toEqual(posted.body);
    const [{ n }] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_entries WHERE tenant_id = :t', { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT });
    expect(n).toBe(1);
    const tb = (await ledger.trialBalance('2026-05-31').expect(200)).body;
    expect([balanceOf(tb, '4010'), balanceOf(tb, '6410')]).toEqual(['11760.00', '1260.00']);
    // A posted invoice is frozen: no edit, no delete, and its entry is not reversed directly.
    expect((await invoices.update(draft.id, { date: '2026-05-20', counterpartyId: cp, lines: [{ description: 'x', quantity: '1', unitPrice: '1' }], expectedVersion: 2 }).expect(409)).body.type).toBe('/problems/document-state');
    expect((await invoices.remove(draft.id).expect(409)).body.type).toBe('/problems/document-state');
    expect((await ledger.reverse(posted.body.entryId, { requestId: randomUUID(), entryDate: '2026-05-21', reason: 'no' }).expect(409)).body.type).toBe('/problems/entry-not-reversible');
    expect((await invoiceEvents(stack, who)).map((e) => e.action)).toEqual(['invoice.created', 'invoice.posted']);
    // Its lines' UZS sums per rate were written on it as it was posted (the VAT register's groups), and stay.
    const groupsOf = async () =>
      (await stack.admin.query<{ g: unknown }>('SELECT vat_groups AS g FROM invoices WHERE tenant_id = :t AND id = :id', { replacements: { t: who.me.tenantId, id: draft.id }, type: QueryTypes.SELECT }))[0]!.g;
    expect(await groupsOf()).toEqual([{ rate: 12, net: 10500, vat: 1260 }]);
    await stack.admin.query(`UPDATE invoices SET vat_groups = '[]' WHERE tenant_id = :t AND id = :id`, { replacements: { t: who.me.tenantId, id: draft.id } });
    expect(await groupsOf()).toEqual([{ rate: 12, net: 10500, vat: 1260 }]);
  });

  test('when a purchase invoice is posted, then Dr each line account net / Dr 4410 VAT / Cr 6010 gross (the supplier), and it keeps the supplier number', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const supplier = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const draft = (await invoices.create(purchaseBody(supplier, '2026-05-03', 'F-100', { lines: [
      { description: 'Steel', quantity: '2', unitPrice: '1500', account: '1010' },
      { description: 'Delivery', quantity: '1', unitPrice: '300', account: '9410', vatRate: null },
    ] })).expect(201)).body;
    const posted = (await invoices.post(draft.id).expect(200)).body;
    expect(posted).toMatchObject({ number: 'F-100', totalNet: '3300.00', totalVat: '360.00', totalGross: '3660.00' });
    const entry = (await ledgerApi(stack, who).get(posted.entryId).expect(200)).body;
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit, l.counterpartyId])).toEqual([
      ['1010', '3000.00', '0.00', null],
      ['9410', '300.00', '0.00', null],
      ['4410', '360.00', '0.00', null],
      ['6010', '0.00', '3660.00', supplier],
    ]);
  });

  test('SALES numbers are gapless per company and year under concurrent postings, and restart in a new year', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const drafts = [];
    for (let i = 0; i < 8; i++) drafts.push((await invoices.create(salesBody(cp, '2026-06-01')).expect(201)).body.id);
    const nextYear = (await invoices.create(salesBody(cp, '2027-01-02')).expect(201)).body.id;
    const numbers = (await Promise.all(drafts.map((id) => invoices.post(id).expect(200)))).map((r) => r.body.number).sort();
    expect(numbers).toEqual(Array.from({ length: 8 }, (_, i) => `2026-00000${i + 1}`));
    expect((await invoices.post(nextYear).expect(200)).body.number).toBe('2027-000001');
  });

  test('when the period is closed, posting is 409 period-closed and the draft stays a draft with no number taken', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const ledger = ledgerApi(stack, who);
    const early = (await invoices.create(salesBody(cp, '2025-01-10')).expect(201)).body;
    await ledger.post(simpleEntry('2025-01-05', '1.00')).expect(201);
    const close = await ledger.close('2025-01-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    expect((await invoices.post(early.id).expect(409)).body.type).toBe('/problems/period-closed');
    expect((await invoices.get(early.id).expect(200)).body).toMatchObject({ status: 'DRAFT', number: null, entryId: null });
    const later = (await invoices.create(salesBody(cp, '2025-02-01')).expect(201)).body;
    expect((await invoices.post(later.id).expect(200)).body.number).toBe('2025-000001');
  });

  test('when a foreign-currency invoice is posted, then the settlement line carries the foreign gross at the CBU rate of its date and the UZS lines add up exactly; without a rate 409 rate-unavailable', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const noRate = (await invoices.create({ ...salesBody(cp, '1999-03-03'), currency: 'EUR' }).expect(201)).body;
    expect((await invoices.post(noRate.id).expect(409)).body.type).toBe('/problems/rate-unavailable');
    await storeCbuRate(stack, 'EUR', '2026-07-01', '13777.77');
    const draft = (await invoices.create({
      ...salesBody(cp, '2026-07-02'),
      currency: 'EUR',
      lines: [
        { description: 'A', quantity: '1', unitPrice: '10.01' },
        { description: 'B', quantity: '3', unitPrice: '0.33' },
        { description: 'C', quantity: '1', unitPrice: '100', vatRate: null },
      ],
    }).expect(201)).body;
    expect(draft).toMatchObject({ totalNet: '111.00', totalVat: '1.32', totalGross: '112.32' });
    const posted = (await invoices.post(draft.id).expect(200)).body;
    // 112.32 EUR × 13777.77 = 1547519.1264 → 1547519.13 UZS for the receivable.
    expect(posted).toMatchObject({ rate: '13777.77', rateDate: '2026-07-01', grossUzs: '1547519.13' });
    const sum = posted.lines.reduce((s: number, l: { netUzs: string; vatUzs: string }) => s + Math.round(Number(l.netUzs) * 100) + Math.round(Number(l.vatUzs) * 100), 0);
    expect(sum).toBe(154751913);
    // The answer is built from what the posting wrote, not read back: it is the invoice as it is read afterwards.
    expect((await invoices.get(draft.id).expect(200)).body).toEqual(posted);
    const entry = (await ledgerApi(stack, who).get(posted.entryId).expect(200)).body;
    expect(entry.lines[0]).toMatchObject({ accountCode: '4010', debit: '1547519.13', currency: 'EUR', currencyAmount: '112.32', rate: '13777.77', rateSource: 'CBU', rateDate: '2026-07-01' });
    expect(entry.totalDebit).toBe('1547519.13');
  });

  test('when a posted invoice is cancelled, then its entry is reversed on the date given, the status is CANCELLED, the same request answers the same and another is 409', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const ledger = ledgerApi(stack, who);
    const draft = (await invoices.create(salesBody(cp, '2026-08-10')).expect(201)).body;
    expect((await invoices.cancel(draft.id, { requestId: randomUUID(), date: '2026-08-10', reason: 'x' }).expect(409)).body.type).toBe('/problems/document-state');
    const posted = (await invoices.post(draft.id).expect(200)).body;
    expect((await invoices.cancel(draft.id, { requestId: randomUUID(), date: '2026-08-09', reason: 'early' }).expect(400)).body.type).toBe('/problems/validation');
    const request = { requestId: randomUUID(), date: '2026-09-02', reason: 'returned goods' };
    const cancelled = (await invoices.cancel(draft.id, request).expect(200)).body;
    expect(cancelled).toMatchObject({ status: 'CANCELLED', outstanding: '0.00', cancellation: { date: '2026-09-02', reason: 'returned goods', entryId: expect.any(String) } });
    const reversal = (await ledger.get(cancelled.cancellation.entryId).expect(200)).body;
    expect(reversal).toMatchObject({ entryDate: '2026-09-02', reversalOf: posted.entryId, source: { type: 'INVOICE', id: draft.id } });
    expect((await invoices.cancel(draft.id, request).expect(200)).body).toEqual(cancelled);
    expect((await invoices.cancel(draft.id, { ...request, requestId: randomUUID() }).expect(409)).body.type).toBe('/problems/document-state');
    const tb = (await ledger.trialBalance('2026-09-30').expect(200)).body;
    expect([balanceOf(tb, '4010'), balanceOf(tb, '6410'), balanceOf(tb, '9020')]).toEqual(['0.00', '0.00', '0.00']);
    expect((await invoices.list({ status: 'CANCELLED' }).expect(200)).body.items.map((i: { id: string }) => i.id)).toEqual([draft.id]);
  });

  test('a counterparty archived after the draft is refused at posting (400 unknown-counterparty), and the invoice stays a draft', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who, { name: 'Soon archived' });
    const invoices = invoicesApi(stack, who);
    const draft = (await invoices.create(salesBody(cp, '2026-04-01')).expect(201)).body;
    await updateCounterparty(stack, who, cp, { name: 'Soon archived', archived: true, expectedVersion: 1 }).expect(200);
    expect((await invoices.post(draft.id).expect(400)).body.type).toBe('/problems/unknown-counterparty');
    expect((await invoices.get(draft.id).expect(200)).body.status).toBe('DRAFT');
  });

  test('the database refuses to change or delete a posted invoice or its lines, whatever the application sends', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const cp = await aCounterparty(stack, who);
    const invoices = invoicesApi(stack, who);
    const draft = (await invoices.create(salesBody(cp, '2026-10-01')).expect(201)).body;
    await invoices.post(draft.id).expect(200);
    const asApp = (sql: string) =>
      stack.db.transaction(async (tx) => {
        await stack.db.query("SELECT set_config('app.tenant_id', :t, true)", { replacements: { t: who.me.tenantId }, transaction: tx });
        await stack.db.query(sql, { replacements: { id: draft.id }, transaction: tx });
      });
    await expect(asApp('UPDATE invoices SET total_net = total_net + 1, total_gross = total_gross + 1 WHERE id = :id')).rejects.toThrow(/frozen/);
    await expect(asApp("UPDATE invoices SET status = 'DRAFT' WHERE id = :id")).rejects.toThrow(/does not go back|violates/);
    await expect(asApp('DELETE FROM invoices WHERE id = :id')).rejects.toThrow(/never deleted/);
    await expect(asApp('UPDATE invoice_lines SET net = net + 1, gross = gross + 1 WHERE invoice_id = :id')).rejects.toThrow(/frozen/);
    await expect(asApp('UPDATE invoices SET allocated = total_gross + 1 WHERE id = :id')).rejects.toThrow(/invoices_allocated_within_gross/);
  });
});

describe('listInvoices', () => {
  test('filters by kind, status (PAID and POSTED apart), counterparty, dates and number prefix; newest first', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const [c1, c2] = [await aCounterparty(stack, who), await aCounterparty(stack, who)];
    const invoices = invoicesApi(stack, who);
    const a = (await invoices.create(salesBody(c1, '2026-01-01')).expect(201)).body;
    const b = (await invoices.create(salesBody(c2, '2026-01-02')).expect(201)).body;
    const c = (await invoices.create(purchaseBody(c2, '2026-01-03', 'PX-1')).expect(201)).body;
    await invoices.post(a.id).expect(200);
    const ids = async (query: Record<string, string>) => (await invoices.list(query).expect(200)).body.items.map((i: { id: string }) => i.id);
    expect(await ids({})).toEqual([c.id, b.id, a.id]);
    expect(await ids({ kind: 'SALES' })).toEqual([b.id, a.id]);
    expect(await ids({ status: 'POSTED' })).toEqual([a.id]);
    expect(await ids({ status: 'DRAFT' })).toEqual([c.id, b.id]);
    expect(await ids({ status: 'PAID' })).toEqual([]);
    expect(await ids({ counterpartyId: c2 })).toEqual([c.id, b.id]);
    expect(await ids({ dateFrom: '2026-01-02', dateTo: '2026-01-02' })).toEqual([b.id]);
    expect(await ids({ q: '2026-' })).toEqual([a.id]);
    expect(await ids({ q: 'PX' })).toEqual([c.id]);
    await api(stack).get(invoices.base).query({ status: 'OPEN' }).set(...bearer(who.accessToken)).expect(400);
  });
});
