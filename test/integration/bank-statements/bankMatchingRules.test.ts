import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { createBankAccount } from '../../helpers/bank-accounts';
import { ledgerApi, simpleEntry } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, purchaseBody, saveTaxSettings } from '../../helpers/invoices';
import { bankStatementsApi, waitForImport } from '../../helpers/bank-statements';
import { statement } from '../../unit/bank-statements/fixture';
import { renderOneC } from '../../unit/bank-statements/render';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

function rulesApi(who: Registered) {
  const base = `/api/v1/bank-matching-rules/${who.me.company.id}`;
  const auth = bearer(who.accessToken);
  return {
    list: () => api(stack).get(base).set(...auth),
    create: (body: Record<string, unknown>) => api(stack).post(base).set(...auth).send(body),
    update: (id: string, body: Record<string, unknown>) => api(stack).put(`${base}/${id}`).set(...auth).send(body),
    remove: (id: string) => api(stack).delete(`${base}/${id}`).set(...auth),
  };
}

const FEES = { name: 'Bank fees', priority: 10, conditions: { direction: 'OUT', purposePattern: 'комисси' }, action: { type: 'POST_TO_ACCOUNT', accountCode: '9430' } };
const RENT = { name: 'Rent', priority: 20, conditions: { counterpartyTin: '305111222' }, action: { type: 'SETTLE_INVOICES' } };

describe('bank matching rules', () => {
  test('create, list in priority order, replace at its version, delete; bad rules are 400 and stored nowhere', async () => {
    const who = await registerWorkspace(stack);
    const rules = rulesApi(who);
    const rent = (await rules.create(RENT).expect(201)).body;
    const fees = (await rules.create(FEES).expect(201)).body;
    expect(fees).toMatchObject({ ...FEES, enabled: true, version: 1 });
    expect((await rules.list().expect(200)).body.items.map((r: { name: string }) => r.name)).toEqual(['Bank fees', 'Rent']);
    const moved = (await rules.update(rent.id, { ...RENT, priority: 5, enabled: false, expectedVersion: 1 }).expect(200)).body;
    expect(moved).toMatchObject({ priority: 5, enabled: false, version: 2 });
    expect((await rules.update(rent.id, { ...RENT, enabled: true, expectedVersion: 1 }).expect(409)).body.type).toBe('/problems/stale-version');
    expect((await rules.list().expect(200)).body.items.map((r: { name: string }) => r.name)).toEqual(['Rent', 'Bank fees']);
    await rules.remove(rent.id).expect(204);
    await rules.remove(rent.id).expect(404);
    await rules.update(rent.id, { ...RENT, enabled: true, expectedVersion: 2 }).expect(404);

    const refused = async (body: Record<string, unknown>, path: string) => {
      const res = await rules.create(body).expect(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    };
    await refused({ ...FEES, conditions: { purposePattern: '(?=fee)' } }, '/body/conditions/purposePattern');
    await refused({ ...FEES, conditions: { purposePattern: '(unclosed' } }, '/body/conditions/purposePattern');
    await refused({ ...FEES, conditions: { amountTolerance: '1.00' } }, '/body/conditions/amountTolerance');
    await refused({ ...FEES, action: { type: 'POST_TO_ACCOUNT' } }, '/body/action/accountCode');
    await refused({ ...RENT, action: { type: 'SETTLE_INVOICES', accountCode: '9430' } }, '/body/action/accountCode');
    await rules.create({ ...FEES, conditions: { colour: 'red' } }).expect(400);
    expect((await rules.list().expect(200)).body.totalElements).toBe(1);
  });

  test('at import, the first rule that holds proposes: fees to 9430, the landlord\'s two open invoices oldest first; confirming a fee posts its own entry, unmatching reverses it, and the books still reconcile', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const account = (await createBankAccount(stack, who, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201)).body;
    const landlord = await aCounterparty(stack, who, { name: 'Ўзбекистон Ижара', tin: '305111222' });
    const invoices = invoicesApi(stack, who);
    const ids: string[] = [];
    for (const [date, number, price] of [['2026-10-01', 'R-10', '700000.50'], ['2026-11-01', 'R-11', '800000.00']] as const) {
      const draft = (await invoices.create({ ...purchaseBody(landlord, date, number), lines: [{ description: 'Rent', quantity: '1', unitPrice: price, vatRate: null, account: '1010' }] }).expect(201)).body;
      ids.push((await invoices.post(draft.id).expect(200)).body.id);
    }
    const ledger = ledgerApi(stack, who);
    await ledger.post(simpleEntry('2026-10-31', statement.openingBalance, '5110', '8710')).expect(201);
    const rules = rulesApi(who);
    // A rule a fee would also meet, of a lower priority: never reached for the fees.
    await rules.create({ name: 'Everything out', priority: 99, conditions: { direction: 'OUT' }, action: { type: 'POST_TO_ACCOUNT', accountCode: '9420' } }).expect(201);
    const fees = (await rules.create(FEES).expect(201)).body;
    const rent = (await rules.create(RENT).expect(201)).body;

    const statements = bankStatementsApi(stack, who, account.id);
    const sent = await statements.import(renderOneC(statement)).expect(202);
    expect((await waitForImport(statements, sent.body.id)).counts).toMatchObject({ proposed: 3, unmatched: 1 });
    const lines = (await statements.lines().expect(200)).body.items as Array<Record<string, any>>;
    const [, rentLine, fee] = lines;
    expect(rentLine!.proposal).toMatchObject({ type: 'SETTLE_INVOICES', counterpartyId: landlord, ruleId: rent.id, accountCode: null, reason: 'rule "Rent"' });
    expect(rentLine!.proposal.allocations.map((a: { invoiceId: string; amount: string }) => [a.invoiceId, a.amount])).toEqual([
      [ids[0], '700000.50'],
      [ids[1], '500000.00'],
    ]);
    expect(fee).toMatchObject({ status: 'PROPOSED', proposal: { type: 'POST_TO_ACCOUNT', accountCode: '9430', ruleId: fees.id, counterpartyId: null, allocations: [] } });

    const matched = (await statements.match(fee!.id, { acceptProposal: true }).expect(200)).body;
    expect(matched).toMatchObject({ status: 'MATCHED', paymentId: null, entryId: expect.any(String) });
    const entry = (await ledger.get(matched.entryId).expect(200)).body;
    expect(entry.source).toEqual({ type: 'BANK_LINE', id: fee!.id });
    expect(entry.lines.map((l: Record<string, unknown>) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['9430', '5000.00', '0.00'],
      ['5110', '0.00', '5000.00'],
    ]);
    await statements.match(rentLine!.id, { acceptProposal: true }).expect(200);
    expect((await invoices.get(ids[0]!).expect(200)).body.status).toBe('PAID');
    expect((await invoices.get(ids[1]!).expect(200)).body).toMatchObject({ status: 'POSTED', outstanding: '300000.00' });

    const reconciliation = (asOf: string) =>
      api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/bank-reconciliation`).query({ bankAccountId: account.id, asOf }).set(...bearer(who.accessToken)).expect(200);
    expect((await reconciliation('2026-11-30')).body).toMatchObject({ unmatchedStatementLines: { count: 2 }, unmatchedLedgerLines: { count: 0 }, unexplained: '0.00' });

    const unmatched = (await statements.unmatch(fee!.id).expect(200)).body;
    expect(unmatched).toMatchObject({ status: 'PROPOSED', entryId: null });
    const reversal = await stack.admin.query<{ reversal_of: string; entry_date: string }>(
      "SELECT reversal_of, to_char(entry_date, 'YYYY-MM-DD') AS entry_date FROM journal_entries WHERE tenant_id = :t AND reversal_of = :e",
      { replacements: { t: who.me.tenantId, e: matched.entryId }, type: QueryTypes.SELECT },
    );
    expect(reversal).toEqual([{ reversal_of: matched.entryId, entry_date: fee!.date }]);
    expect((await reconciliation('2026-11-30')).body).toMatchObject({ unmatchedStatementLines: { count: 3 }, unmatchedLedgerLines: { count: 0 }, unexplained: '0.00' });

    // Posting to the bank's own account, or to an account the chart has not, is refused.
    expect((await statements.match(fee!.id, { accountCode: '5110' }).expect(400)).body.errors[0].path).toBe('/body/accountCode');
    expect((await statements.match(fee!.id, { accountCode: '9999' }).expect(400)).body.type).toBe('/problems/unknown-account');
    await statements.match(fee!.id, { accountCode: '9420' }).expect(200);
  });

  test('a rule with autoConfirm posts its proposals during the import, a line to a commit, as the person who imported; a line it cannot post stays proposed with why', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const account = (await createBankAccount(stack, who, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201)).body;
    const landlord = await aCounterparty(stack, who, { name: 'Ўзбекистон Ижара', tin: '305111222' });
    const invoices = invoicesApi(stack, who);
    const ids: string[] = [];
    for (const [date, number, price] of [['2026-10-01', 'R-10', '700000.50'], ['2026-11-01', 'R-11', '800000.00']] as const) {
      const draft = (await invoices.create({ ...purchaseBody(landlord, date, number), lines: [{ description: 'Rent', quantity: '1', unitPrice: price, vatRate: null, account: '1010' }] }).expect(201)).body;
      ids.push((await invoices.post(draft.id).expect(200)).body.id);
    }
    const ledger = ledgerApi(stack, who);
    await ledger.post(simpleEntry('2026-10-31', statement.openingBalance, '5110', '8710')).expect(201);
    const rules = rulesApi(who);
    const fees = (await rules.create({ ...FEES, autoConfirm: true }).expect(201)).body;
    expect(fees.autoConfirm).toBe(true);
    await rules.create({ ...RENT, autoConfirm: true }).expect(201);
    // The customer's receipt to an account the chart does not have: the posting is refused, the line waits.
    await rules.create({ name: 'Receipts', priority: 30, conditions: { direction: 'IN' }, action: { type: 'POST_TO_ACCOUNT', accountCode: '9999' }, autoConfirm: true }).expect(201);
    // Left out of a replacement, autoConfirm is false again.
    const plain = (await rules.create({ name: 'Unused', priority: 90, conditions: { reference: 'none' }, action: { type: 'SETTLE_INVOICES' }, autoConfirm: true }).expect(201)).body;
    expect((await rules.update(plain.id, { ...plain, id: undefined, version: undefined, autoConfirm: undefined, expectedVersion: 1 }).expect(200)).body.autoConfirm).toBe(false);

    const statements = bankStatementsApi(stack, who, account.id);
    const sent = await statements.import(renderOneC(statement)).expect(202);
    expect((await waitForImport(statements, sent.body.id)).counts).toEqual({ read: 4, new: 4, duplicate: 0, matched: 3, proposed: 1, unmatched: 0 });
    const lines = (await statements.lines().expect(200)).body.items as Array<Record<string, any>>;
    const [receipt, rentLine, fee1, fee2] = lines;
    expect(receipt).toMatchObject({ status: 'PROPOSED', proposal: { type: 'POST_TO_ACCOUNT', accountCode: '9999' } });
    expect(receipt!.proposal.reason).toMatch(/^rule "Receipts"; not confirmed by itself: unknown-account: /);
    expect(rentLine).toMatchObject({ status: 'MATCHED', paymentId: expect.any(String), entryId: null });
    for (const fee of [fee1, fee2]) expect(fee).toMatchObject({ status: 'MATCHED', paymentId: null, entryId: expect.any(String) });
    expect(fee1!.entryId).not.toBe(fee2!.entryId);

    // The rent line's payment settles the older invoice and part of the newer, named by its line.
    expect((await invoices.get(ids[0]!).expect(200)).body.status).toBe('PAID');
    expect((await invoices.get(ids[1]!).expect(200)).body).toMatchObject({ status: 'POSTED', outstanding: '300000.00' });
    const payment = (await api(stack).get(`/api/v1/payments/${who.me.company.id}/${rentLine!.paymentId}`).set(...bearer(who.accessToken)).expect(200)).body;
    expect(payment).toMatchObject({ direction: 'OUT', amount: '1200000.50', bankLineId: rentLine!.id, date: rentLine!.date });
    const entry = (await ledger.get(fee1!.entryId).expect(200)).body;
    expect(entry).toMatchObject({ source: { type: 'BANK_LINE', id: fee1!.id }, postedByMembershipId: who.me.membershipId });

    // Each confirmation is the importer's, by the rule, in the audit trail; one entry per matched line.
    const audit = await stack.admin.query<{ actor_membership_id: string; system_actor: boolean; details: string }>(
      "SELECT actor_membership_id, system_actor, details FROM audit_events WHERE tenant_id = :t AND action = 'bank-line.matched' ORDER BY details",
      { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(audit).toHaveLength(3);
    for (const event of audit) expect(event).toMatchObject({ actor_membership_id: who.me.membershipId, system_actor: false, details: expect.stringMatching(/confirmed by rule "(Bank fees|Rent)" during import /) });
    const entries = await stack.admin.query<{ source_id: string; n: string }>(
      "SELECT source_id, count(*) AS n FROM journal_entries WHERE tenant_id = :t AND source_type IN ('BANK_LINE', 'PAYMENT') GROUP BY source_id",
      { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(entries.map((e) => Number(e.n))).toEqual([1, 1, 1]);

    // The books and the bank agree but for the line still waiting; it is a person's to match now.
    const reconciliation = await api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/bank-reconciliation`).query({ bankAccountId: account.id, asOf: '2026-11-30' }).set(...bearer(who.accessToken)).expect(200);
    expect(reconciliation.body).toMatchObject({ unmatchedStatementLines: { count: 1, total: '4500000.00' }, unexplained: '0.00' });
    await statements.match(receipt!.id, { accountCode: '6310' }).expect(200);
    // An auto-confirmed match is unmatched as any other: the payment is cancelled, the invoices open again.
    await statements.unmatch(rentLine!.id).expect(200);
    expect((await invoices.get(ids[0]!).expect(200)).body).toMatchObject({ status: 'POSTED', outstanding: '700000.50' });
  });

  test('a pattern that backtracks catastrophically elsewhere runs in linear time here', async () => {
    const who = await registerWorkspace(stack);
    await saveTaxSettings(stack, who);
    const account = (await createBankAccount(stack, who, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201)).body;
    await rulesApi(who).create({ name: 'Nested quantifiers', priority: 1, conditions: { purposePattern: '^(a+)+$' }, action: { type: 'POST_TO_ACCOUNT', accountCode: '9430' } }).expect(201);
    const evil = { date: '2026-11-02', direction: 'OUT' as const, amount: '1.00', purpose: `${'a'.repeat(990)}!` };
    const lines = [...statement.lines, evil];
    const statements = bankStatementsApi(stack, who, account.id);
    const sent = await statements.import(renderOneC({ ...statement, lines, closingBalance: '4539998.50' })).expect(202);
    const done = await waitForImport(statements, sent.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', counts: { read: 5, proposed: 0 } });
  });
});
