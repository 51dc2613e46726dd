import Papa from 'papaparse';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { createBankAccount } from '../../helpers/bank-accounts';
import { ledgerApi, simpleEntry } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { bankStatementsApi, waitForImport } from '../../helpers/bank-statements';
import { closing, statement } from '../../unit/bank-statements/fixture';
import { renderOneC, type Statement } from '../../unit/bank-statements/render';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

/** The statement's account, with the bank's opening balance on 5110 (unless told not to) and the customer's invoice of its first line. */
async function aCompany(options: { openingOnLedger?: boolean; lines?: Statement['lines'] } = {}) {
  const who = await registerWorkspace(stack);
  await saveTaxSettings(stack, who);
  const account = (await createBankAccount(stack, who, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201)).body;
  const customer = await aCounterparty(stack, who, { name: 'Тошкент Савдо', tin: statement.lines[0]!.counterpartyTin });
  const invoices = invoicesApi(stack, who);
  const draft = (await invoices.create({ ...salesBody(customer, '2026-11-01'), lines: [{ description: 'Goods', quantity: '1', unitPrice: '4500000.00', vatRate: null }] }).expect(201)).body;
  const invoice = (await invoices.post(draft.id).expect(200)).body;
  const ledger = ledgerApi(stack, who);
  if (options.openingOnLedger ?? true) await ledger.post(simpleEntry('2026-10-31', statement.openingBalance, '5110', '8710')).expect(201);
  const statements = bankStatementsApi(stack, who, account.id);
  const lines = options.lines ?? statement.lines;
  const file: Statement = { ...statement, lines, closingBalance: closing(statement.openingBalance, lines) };
  const sent = await statements.import(renderOneC(file)).expect(202);
  expect((await waitForImport(statements, sent.body.id)).status).toBe('COMPLETED');
  const report = (asOf: string, accept = 'application/json') =>
    api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/bank-reconciliation`).query({ bankAccountId: account.id, asOf }).set(...bearer(who.accessToken)).set('Accept', accept);
  return { who, account, invoice, ledger, statements, report, file };
}

describe('getBankReconciliation (GET /api/v1/ledger/{legalEntityId}/reports/bank-reconciliation)', () => {
  test('when the books and the bank agree, then unexplained is zero: a matched line is on both sides, the unmatched ones are listed on theirs, and an unmatched payment cancels out', async () => {
    const c = await aCompany();
    const proposed = (await c.statements.lines({ status: 'PROPOSED' }).expect(200)).body.items[0];
    await c.statements.match(proposed.id, { acceptProposal: true }).expect(200);
    // Cash paid in at the till and carried to the bank the next month: in the books, not yet on the statement.
    await c.ledger.post(simpleEntry('2026-11-10', '100000.00', '5110', '9010')).expect(201);

    const report = (await c.report('2026-11-30').expect(200)).body;
    expect(report).toMatchObject({
      bankAccountId: c.account.id,
      accountCode: '5110',
      currency: 'UZS',
      firstStatementDate: '2026-11-01',
      statementBalance: c.file.closingBalance,
      ledgerBalance: '5850000.00',
      unmatchedStatementLines: { count: 3, total: '-1210000.50' },
      unmatchedLedgerLines: { count: 1, total: '100000.00' },
      unexplained: '0.00',
    });
    expect(report.unmatchedStatementLines.items.map((l: { date: string; amount: string; status: string }) => [l.date, l.amount, l.status])).toEqual([
      ['2026-11-05', '-1200000.50', 'UNMATCHED'],
      ['2026-11-20', '-5000.00', 'UNMATCHED'],
      ['2026-11-20', '-5000.00', 'UNMATCHED'],
    ]);
    expect(report.unmatchedLedgerLines.items).toEqual([expect.objectContaining({ date: '2026-11-10', amount: '100000.00' })]);

    // Before the rent left: nothing of the statement is unmatched yet.
    expect((await c.report('2026-11-04').expect(200)).body).toMatchObject({
      statementBalance: '5750000.00',
      ledgerBalance: '5750000.00',
      unmatchedStatementLines: { count: 0, total: '0.00' },
      unmatchedLedgerLines: { count: 0, total: '0.00' },
      unexplained: '0.00',
    });

    // Unmatched: the payment and its cancellation cancel out on the ledger side, the line is unmatched again.
    await c.statements.unmatch(proposed.id).expect(200);
    expect((await c.report('2026-11-30').expect(200)).body).toMatchObject({
      ledgerBalance: '1350000.00',
      unmatchedStatementLines: { count: 4, total: '3289999.50' },
      unmatchedLedgerLines: { count: 1, total: '100000.00' },
      unexplained: '0.00',
    });
  });

  test('when the GL account did not hold the statement\'s opening balance, then unexplained says by how much', async () => {
    const c = await aCompany({ openingOnLedger: false });
    expect((await c.report('2026-11-30').expect(200)).body).toMatchObject({ statementBalance: c.file.closingBalance, ledgerBalance: '0.00', unexplained: '1250000.00' });
  });

  test('as CSV, a row per unmatched line; text of the bank\'s file that would start a formula is written neutralised', async () => {
    const formula = { date: '2026-11-21', direction: 'OUT' as const, amount: '10.00', counterpartyName: '=HYPERLINK("http://evil.example","x")', purpose: '=1+2' };
    const c = await aCompany({ lines: [...statement.lines, formula] });
    const csv = await c.report('2026-11-30', 'text/csv').expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = Papa.parse<string[]>(csv.text.replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual(['side', 'date', 'reference', 'counterparty', 'description', 'amount']);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[5]])).toEqual([
      ['STATEMENT', '2026-11-03', '4500000.00'],
      ['STATEMENT', '2026-11-05', '-1200000.50'],
      ['STATEMENT', '2026-11-20', '-5000.00'],
      ['STATEMENT', '2026-11-20', '-5000.00'],
      ['STATEMENT', '2026-11-21', '-10.00'],
    ]);
    const last = rows.at(-1)!;
    expect(last[3]).toBe(`'${formula.counterpartyName}`);
    expect(last[4]).toBe(`'${formula.purpose}`);
    // The stored line keeps what the bank sent.
    const stored = (await c.statements.lines({ from: '2026-11-21' }).expect(200)).body.items[0];
    expect(stored).toMatchObject({ counterpartyName: formula.counterpartyName, purpose: formula.purpose });
    await c.report('2026-11-30', 'application/pdf').expect(406);
  });

  test('another company\'s bank account is 404; a missing date is 400', async () => {
    const c = await aCompany();
    const other = await registerWorkspace(stack);
    await api(stack).get(`/api/v1/ledger/${other.me.company.id}/reports/bank-reconciliation`).query({ bankAccountId: c.account.id, asOf: '2026-11-30' }).set(...bearer(other.accessToken)).expect(404);
    await api(stack).get(`/api/v1/ledger/${c.who.me.company.id}/reports/bank-reconciliation`).query({ bankAccountId: c.account.id }).set(...bearer(c.who.accessToken)).expect(400);
  });
});
