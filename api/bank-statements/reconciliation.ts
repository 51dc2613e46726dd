import Decimal from 'decimal.js';
import { reconciliationInputs } from '../../db/repositories/bank-statements/statements';
import { currencyDecimals } from '../../core/ledger/currency';
import type { Principal } from '../http/context';
import type { Schemas, StreamReply } from '../http/operation-handler';
import { tableReply, type Column, type TableType } from '../http/table-export';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { CompanyScopes } from '../organisation/company-scope';
import { requireBankAccount } from './statements';

type Reconciliation = Schemas['BankReconciliation'];

/** One row of the export: an unmatched statement line or an unmatched ledger line. */
interface ReconciliationRow {
  side: 'STATEMENT' | 'LEDGER';
  date: string;
  reference: string | null;
  counterparty: string | null;
  description: string;
  amount: string;
}

const columns: Column<ReconciliationRow>[] = [
  { header: 'side', kind: 'code', width: 12, value: (r) => r.side },
  { header: 'date', kind: 'code', width: 12, value: (r) => r.date },
  { header: 'reference', kind: 'code', width: 20, value: (r) => r.reference },
  { header: 'counterparty', kind: 'text', value: (r) => r.counterparty },
  { header: 'description', kind: 'text', value: (r) => r.description },
  { header: 'amount', kind: 'amount', value: (r) => r.amount },
];

/**
 * The bank reconciliation of one bank account at a date: the statement's balance, the GL account's, what each
 * side has that the other does not, and what is left unexplained (zero when the books and the bank agree).
 */
export function createBankReconciliation(deps: { companies: CompanyScopes; xlsxThreads: XlsxThreads }) {
  async function getBankReconciliation(principal: Principal, legalEntityId: string, query: { bankAccountId: string; asOf: string }): Promise<Reconciliation> {
    return deps.companies.read(principal, legalEntityId, async (tx, scope) => {
      const account = await requireBankAccount(tx, scope, query.bankAccountId);
      const inputs = await reconciliationInputs(tx, scope, { bankAccountId: account.id, accountCode: account.accountCode, currency: account.currency, asOf: query.asOf });
      const places = currencyDecimals(account.currency);
      const money = (value: Decimal.Value) => new Decimal(value).toFixed(places);
      const statementBalance = new Decimal(inputs.firstStatement?.openingBalance ?? 0).plus(inputs.linesTotal);
      const statementItems = inputs.unmatchedStatementLines.map((l) => ({
        lineId: l.id,
        date: l.date,
        direction: l.direction,
        amount: money(l.direction === 'IN' ? l.amount : new Decimal(l.amount).negated()),
        counterpartyName: l.counterpartyName,
        purpose: l.purpose,
        status: l.status as 'UNMATCHED' | 'PROPOSED',
      }));
      const ledgerItems = inputs.unmatchedLedgerLines.map((l) => ({ entryId: l.entryId, entryNumber: Number(l.entryNumber), date: l.date, description: l.description, amount: money(l.amount) }));
      const statementTotal = statementItems.reduce((s, l) => s.plus(l.amount), new Decimal(0));
      const ledgerTotal = ledgerItems.reduce((s, l) => s.plus(l.amount), new Decimal(0));
      const unexplained = statementBalance.minus(inputs.ledgerBalance).minus(statementTotal).plus(ledgerTotal);
      return {
        bankAccountId: account.id,
        accountNumber: account.accountNumber,
        accountCode: account.accountCode,
        currency: account.currency,
        asOf: query.asOf,
        firstStatementDate: inputs.firstStatement?.date ?? null,
        statementBalance: money(statementBalance),
        ledgerBalance: money(inputs.ledgerBalance),
        unmatchedStatementLines: { count: statementItems.length, total: money(statementTotal), items: statementItems },
        unmatchedLedgerLines: { count: ledgerItems.length, total: money(ledgerTotal), items: ledgerItems },
        unexplained: money(unexplained),
      };
    });
  }

  /** Both lists as one table (the statement's lines first), for CSV or XLSX; the balances are the JSON answer's. */
  function bankReconciliationExport(contentType: TableType, legalEntityId: string, report: Reconciliation): StreamReply<TableType> {
    const rows: ReconciliationRow[] = [
      ...report.unmatchedStatementLines.items.map((l) => ({ side: 'STATEMENT' as const, date: l.date, reference: null, counterparty: l.counterpartyName, description: l.purpose, amount: l.amount })),
      ...report.unmatchedLedgerLines.items.map((l) => ({ side: 'LEDGER' as const, date: l.date, reference: String(l.entryNumber), counterparty: null, description: l.description, amount: l.amount })),
    ];
    return tableReply(contentType, `bank-reconciliation-${legalEntityId}-${report.accountNumber}-${report.asOf}`, 'Bank reconciliation', columns, [rows], deps.xlsxThreads);
  }

  return { getBankReconciliation, bankReconciliationExport };
}
