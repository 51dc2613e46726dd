import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { agingOf } from '../../helpers/payments';
import { getCounterparty, updateCounterparty } from '../../helpers/counterparties';
import { readInTenant } from '../../../db/connection';
import { agingKeptStateStatement, agingKeptStatement, agingStatement, type AgingSide } from '../../../db/repositories/payments/aging';
import { DEFAULT_DOCUMENT_ACCOUNTS } from '../../../core/invoices/invoices';
import { AGING_ACCOUNTS } from '../../../db/migrations/2026.11.29T14.00.00.aging-kept';

// The aging is kept per company and side as last built, with the counterparties changed since marked by the
// lines they wrote (migration 2026.11.29T14.00.00.aging-kept). What is read from it must be what the documents
// say: after every kind of change, the kept aging patched with the changed counterparties equals the aging
// computed from the documents, in one snapshot (a counterparty renamed counts as changed); a transaction still
// open while the aging is built counts as a change once it commits; a build keeps one set of rows and leaves the marks a kept snapshot does not see.

let stack: TestStack;
let who: Registered;
let customers: string[];
const AS_OF = '2025-06-30';
beforeAll(async () => {
  stack = await startTestStack();
  who = await registerWorkspace(stack);
  await saveTaxSettings(stack, who);
  customers = [];
  for (const name of ['Kept A', 'Kept B', 'Kept C', 'Kept D']) customers.push(await aCounterparty(stack, who, { name }));
});
afterAll(async () => {
  await stack.stop();
});

const scope = () => ({ tenantId: who.me.tenantId, legalEntityId: who.me.company.id });
const receivable = {
  asOf: AS_OF,
  side: 'RECEIVABLE' as AgingSide,
  kind: 'SALES' as const,
  direction: 'IN' as const,
  settlementAccount: DEFAULT_DOCUMENT_ACCOUNTS.receivable,
  advanceAccount: DEFAULT_DOCUMENT_ACCOUNTS.advancesReceived,
  settlementSign: 1 as const,
};

/** The kept aging (patched), the aging from the documents, and the kept state, read in one snapshot. */
async function keptAndComputed(asOf = AS_OF) {
  const query = { ...receivable, asOf };
  const [kept, computed, state] = await readInTenant(stack.db, who.me.tenantId, [
    agingKeptStatement(scope(), query, null),
    agingStatement(scope(), query),
    agingKeptStateStatement(scope(), 'RECEIVABLE', asOf),
  ]);
  return { kept, computed, changed: state!.length === 1 ? Number(state![0]!.changed) : null };
}

async function keptBuild(side: AgingSide = 'RECEIVABLE'): Promise<{ build_id: string; as_of: string } | undefined> {
  const [row] = await stack.admin.query<{ build_id: string; as_of: string }>(
    `SELECT build_id::text, as_of::text FROM aging_snapshots WHERE tenant_id = :t AND legal_entity_id = :le AND side = :side`,
    { replacements: { t: who.me.tenantId, le: who.me.company.id, side }, type: QueryTypes.SELECT },
  );
  return row;
}

describe('the kept aging', () => {
  test('the settlement and advance accounts the marks watch are the documents\' four', () => {
    const accounts = DEFAULT_DOCUMENT_ACCOUNTS;
    expect([...AGING_ACCOUNTS].sort()).toEqual([accounts.receivable, accounts.payable, accounts.advancesReceived, accounts.advancesPaid].sort());
  });

  test('after every kind of change, the kept aging patched with the changed counterparties equals the aging from the documents, and is not built again', async () => {
    const invoices = invoicesApi(stack, who);
    const payments = `/api/v1/payments/${who.me.company.id}`;
    const pay = (body: Record<string, unknown>) => api(stack).post(payments).set(...bearer(who.accessToken)).send({ requestId: randomUUID(), cashAccount: '5110', direction: 'IN', ...body }).expect(201);
    const exempt = (gross: string) => [{ description: 'Goods', quantity: '1', unitPrice: gross, vatRate: null }];
    const post = async (cp: string, date: string, gross: string, dueDate: string) =>
      (await invoices.post((await invoices.create({ ...salesBody(cp, date, { dueDate }), lines: exempt(gross) }).expect(201)).body.id).expect(200)).body;
    const [a, b, c, d] = customers as [string, string, string, string];

    // Three customers' invoices, then the aging is built.
    const a1 = await post(a, '2025-01-10', '1000.00', '2025-02-10');
    await post(b, '2025-03-01', '500.00', '2025-07-01');
    await post(c, '2025-04-01', '300.00', '2025-04-15');
    await post(d, '2025-04-02', '40.00', '2025-04-16');
    expect((await agingOf(stack, who, AS_OF, 'RECEIVABLE').expect(200)).body.items).toHaveLength(4);
    const built = await keptBuild();
    expect(built).toEqual({ build_id: expect.any(String), as_of: AS_OF });
    expect(await keptAndComputed()).toEqual({ kept: (await keptAndComputed()).computed, computed: expect.any(Array), changed: 0 });

    const changes: Array<[string, () => Promise<unknown>, number]> = [
      ['an invoice posted', () => post(a, '2025-05-01', '250.00', '2025-05-31'), 1],
      ['a payment allocated to an invoice', () => pay({ date: '2025-05-02', counterpartyId: a, amount: '400.00', allocations: [{ invoiceId: a1.id, amount: '400.00' }] }), 1],
      ['an advance', () => pay({ date: '2025-05-03', counterpartyId: b, amount: '80.00' }), 2],
      ['a payment oldest first that overpays', () => pay({ date: '2025-05-04', counterpartyId: c, amount: '350.00', allocate: 'OLDEST_FIRST' }), 3],
      ['a manual line on 4010 without a counterparty', () => ledgerApi(stack, who).post(entryBody('2025-05-05', [{ accountCode: '4010', debit: '70.00' }, { accountCode: '9020', credit: '70.00' }])).expect(201), 4],
      ['an invoice cancelled', async () => {
        const extra = await post(b, '2025-05-06', '90.00', '2025-05-20');
        await invoices.cancel(extra.id, { requestId: randomUUID(), date: '2025-05-07', reason: 'returned' }).expect(200);
      }, 4],
      ['an invoice dated after the kept date (changes nothing on it)', () => post(c, '2025-07-05', '60.00', '2025-08-05'), 4],
    ];
    for (const [what, change, changed] of changes) {
      await change();
      const read = await keptAndComputed();
      expect({ what, kept: read.kept, changed: read.changed }).toEqual({ what, kept: read.computed, changed });
      // The report answers the same rows, without building again.
      const answered = (await agingOf(stack, who, AS_OF, 'RECEIVABLE').expect(200)).body;
      expect({ what, items: answered.items.map((i: { counterpartyId: string | null }) => i.counterpartyId) }).toEqual({ what, items: read.computed.filter((r) => !r.total).map((r) => r.counterparty_id) });
      expect({ what, build: await keptBuild() }).toEqual({ what, build: built });
    }
    // The overpayment is an advance of C's, the manual line the null counterparty's row.
    const final: Array<{ counterpartyId: string | null; outstanding: string; advances: string }> = (await agingOf(stack, who, AS_OF, 'RECEIVABLE').expect(200)).body.items;
    expect(final.find((r) => r.counterpartyId === c)).toMatchObject({ outstanding: '0.00', advances: '50.00' });
    expect(final.find((r) => r.counterpartyId === null)).toMatchObject({ outstanding: '70.00' });

    // A customer's new name and TIN mark it: the kept aging shows them at once, without building again.
    const current = (await getCounterparty(stack, who, d).expect(200)).body;
    await updateCounterparty(stack, who, d, { name: 'Kept D (renamed)', tin: '301000777', bankAccounts: [], archived: false, expectedVersion: current.version }).expect(200);
    const renamed = await keptAndComputed();
    expect({ kept: renamed.kept, changed: renamed.changed }).toEqual({ kept: renamed.computed, changed: 5 });
    const named = (await agingOf(stack, who, AS_OF, 'RECEIVABLE').expect(200)).body.items.find((i: { counterpartyId: string }) => i.counterpartyId === d);
    expect(named).toMatchObject({ name: 'Kept D (renamed)', tin: '301000777' });
    expect(await keptBuild()).toEqual(built);

    // Another date builds again: one build's rows are kept, and the marks the new snapshot sees are gone.
    await agingOf(stack, who, '2025-06-29', 'RECEIVABLE').expect(200);
    const rebuilt = await keptBuild();
    expect(rebuilt!.as_of).toBe('2025-06-29');
    expect(BigInt(rebuilt!.build_id)).toBeGreaterThan(BigInt(built!.build_id));
    const [rows] = await stack.admin.query<{ builds: number; marks: number }>(
      `SELECT (SELECT count(DISTINCT build_id)::int FROM aging_kept_rows WHERE tenant_id = :t AND legal_entity_id = :le) AS builds,
              (SELECT count(*)::int FROM aging_marks WHERE tenant_id = :t AND legal_entity_id = :le) AS marks`,
      { replacements: { t: who.me.tenantId, le: who.me.company.id }, type: QueryTypes.SELECT },
    );
    expect(rows).toEqual({ builds: 1, marks: 0 });
    expect(await keptAndComputed('2025-06-29')).toMatchObject({ changed: 0 });
    const again = await keptAndComputed('2025-06-29');
    expect(again.kept).toEqual(again.computed);
  });

  test('a transaction still open while the aging is built counts as a change once it commits', async () => {
    const ws = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, ws);
    await ledger.post(entryBody('2025-01-10', [{ accountCode: '4010', debit: '100.00' }, { accountCode: '9020', credit: '100.00' }])).expect(201);
    const outstanding = async (asOf: string) => (await agingOf(stack, ws, asOf, 'RECEIVABLE').expect(200)).body.totals[0]?.outstanding;
    expect(await outstanding('2025-03-01')).toBe('100.00');

    // An entry of 50 on 4010, written in a transaction that stays open while the aging is built at another date.
    const owner = stack.owner;
    const transaction = await owner.transaction();
    const replacements = { t: ws.me.tenantId, le: ws.me.company.id };
    try {
      await owner.query(`SELECT set_config('app.tenant_id', :t, true)`, { replacements, transaction, type: QueryTypes.SELECT });
      const [state] = await owner.query<{ n: number }>(
        `UPDATE ledger_states SET next_entry_number = next_entry_number + 1 WHERE tenant_id = CAST(:t AS uuid) AND legal_entity_id = CAST(:le AS uuid) RETURNING next_entry_number - 1 AS n`,
        { replacements, transaction, type: QueryTypes.SELECT },
      );
      const id = randomUUID();
      await owner.query(
        `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
         VALUES (:t, :id, :le, :n, '2025-01-12', 'Open while the aging is built', gen_random_uuid(), 'kept', 50, 50, 2, gen_random_uuid())`,
        { replacements: { ...replacements, id, n: state!.n }, transaction, type: QueryTypes.RAW },
      );
      await owner.query(
        `INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
         VALUES (:t, :id, :n, 1, :le, '2025-01-12', '4010', 50, 0), (:t, :id, :n, 2, :le, '2025-01-12', '9020', 0, 50)`,
        { replacements: { ...replacements, id, n: state!.n }, transaction, type: QueryTypes.RAW },
      );
      // Built while the entry is not committed: it is not in the build.
      expect(await outstanding('2025-03-02')).toBe('100.00');
      await transaction.commit();
    } catch (err) {
      await transaction.rollback();
      throw err;
    }
    // The aging kept at that date is not built again, and has the entry: its transaction was not in the build's snapshot.
    const [head] = await stack.admin.query<{ as_of: string }>(`SELECT as_of::text FROM aging_snapshots WHERE tenant_id = :t AND legal_entity_id = :le`, { replacements, type: QueryTypes.SELECT });
    expect(head).toEqual({ as_of: '2025-03-02' });
    expect(await outstanding('2025-03-02')).toBe('150.00');
    const tb = (await ledger.trialBalance('2025-03-02').expect(200)).body;
    expect(tb.lines.find((l: { code: string }) => l.code === '4010')?.balance).toBe('150.00');
  });
});
