import {
  reconciliationBatch,
  reconciliationPageOf,
  reconciliationPageStatement,
  type ReconciliationLineRow,
  type ReconciliationPosition,
} from '../../db/repositories/counterparties/reconciliation';
import { lastEntryNumber } from '../../db/repositories/ledger/exports';
import { balanceIn, documentOf, sidesIn, type ReconciliationView } from '../../core/counterparties/reconciliation';
import { formatForeignAmount } from '../../core/ledger/currency';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { AppError } from '../../core/shared/problems';
import type { Principal } from '../http/context';
import type { Schemas, StreamReply } from '../http/operation-handler';
import type { PageQuery } from '../http/pages';
import { tableReply, type Column, type TableType } from '../http/table-export';
import type { XlsxThreads } from '../http/xlsx-threads';
import { EXPORT_BATCH } from '../ledger/exports';
import { checkRange } from '../ledger/reports';
import type { CompanyScopes } from '../organisation/company-scope';

// The reconciliation statement (act of mutual settlements) with one counterparty: getReconciliationStatement.
// As JSON, a page of its lines with the whole range's balances and turnovers, read in one statement (one
// snapshot, so they tie; db/repositories/counterparties/reconciliation.ts); as CSV or XLSX, the opening
// balance, every line (EXPORT_BATCH at a time after the last one written, each batch in a transaction of its
// own, as the account statement's export), the turnovers and the closing balance. Names of lines and the
// counterparty's view are core/counterparties/reconciliation.ts.

type Statement = Schemas['ReconciliationStatement'];
type Line = Schemas['ReconciliationLine'];

interface StatementQuery {
  counterpartyId: string;
  from: string;
  to: string;
  view: ReconciliationView;
}

const minor = numericToMinorUnits;
const uzs = formatMinorUnits;

/** A statement line as `view` reads it; `net` is the running balance after it (debit minus credit in the company's books). */
function toLine(row: ReconciliationLineRow, view: ReconciliationView, net: bigint): Line {
  const { kind, document } = documentOf({
    entryNumber: Number(row.entryNumber),
    description: row.description,
    invoice: row.invoiceKind && row.invoiceNumber ? { kind: row.invoiceKind, number: row.invoiceNumber, cancellation: row.invoiceCancellation } : null,
    payment: row.paymentDirection && row.paymentDate && row.paymentRole
      ? { direction: row.paymentDirection, date: row.paymentDate, role: row.paymentRole, invoiceNumbers: row.allocatedInvoices }
      : null,
  });
  const sides = sidesIn(view, { debit: uzs(minor(row.debit)), credit: uzs(minor(row.credit)) });
  const currency = row.currency;
  const foreign = currency ? sidesIn(view, { debit: formatForeignAmount(row.currencyDebit ?? '0', currency), credit: formatForeignAmount(row.currencyCredit ?? '0', currency) }) : null;
  return {
    date: row.date,
    kind,
    document,
    source: row.sourceType && row.sourceId ? { type: row.sourceType, id: row.sourceId } : null,
    entryId: row.entryId,
    entryNumber: Number(row.entryNumber),
    accounts: row.accounts,
    debit: sides.debit,
    credit: sides.credit,
    balance: uzs(balanceIn(view, net)),
    currency,
    currencyDebit: foreign?.debit ?? null,
    currencyCredit: foreign?.credit ?? null,
  };
}

/** A row of an export: a statement line, or the opening balance, the turnovers or the closing balance around them. */
interface ExportRow extends Omit<Line, 'kind' | 'entryId' | 'entryNumber' | 'debit' | 'credit' | 'balance'> {
  kind: Line['kind'] | 'OPENING_BALANCE' | 'TURNOVERS' | 'CLOSING_BALANCE';
  entryId: string | null;
  entryNumber: number | null;
  debit: string | null;
  credit: string | null;
  balance: string | null;
}

const UUID_WIDTH = 38;

/** The JSON line's fields (`source` dotted), after the counterparty's name and TIN on every row. */
function exportColumns(counterparty: { name: string; tin: string | null }): Column<ExportRow>[] {
  return [
    { header: 'counterpartyName', kind: 'text', value: () => counterparty.name },
    { header: 'counterpartyTin', kind: 'code', width: 16, value: () => counterparty.tin },
    { header: 'date', kind: 'code', value: (r) => r.date },
    { header: 'kind', kind: 'code', width: 22, value: (r) => r.kind },
    { header: 'document', kind: 'text', width: 50, value: (r) => r.document },
    { header: 'source.type', kind: 'code', width: 10, value: (r) => r.source?.type ?? null },
    { header: 'source.id', kind: 'code', width: UUID_WIDTH, value: (r) => r.source?.id ?? null },
    { header: 'entryId', kind: 'code', width: UUID_WIDTH, value: (r) => r.entryId },
    { header: 'entryNumber', kind: 'integer', value: (r) => r.entryNumber },
    { header: 'accounts', kind: 'code', value: (r) => r.accounts.join(' ') },
    { header: 'debit', kind: 'amount', value: (r) => r.debit },
    { header: 'credit', kind: 'amount', value: (r) => r.credit },
    { header: 'balance', kind: 'amount', value: (r) => r.balance },
    { header: 'currency', kind: 'code', width: 10, value: (r) => r.currency },
    { header: 'currencyDebit', kind: 'amount', value: (r) => r.currencyDebit },
    { header: 'currencyCredit', kind: 'amount', value: (r) => r.currencyCredit },
  ];
}

/** A row of an export that is not a statement line. */
const summaryRow = (kind: ExportRow['kind'], date: string, document: string, amounts: Pick<ExportRow, 'debit' | 'credit' | 'balance'>): ExportRow => ({
  kind,
  date,
  document,
  source: null,
  entryId: null,
  entryNumber: null,
  accounts: [],
  currency: null,
  currencyDebit: null,
  currencyCredit: null,
  ...amounts,
});

export function createReconciliationStatements(companies: CompanyScopes, xlsxThreads: XlsxThreads) {
  async function getReconciliationStatement(principal: Principal, legalEntityId: string, query: StatementQuery & PageQuery): Promise<Statement> {
    checkRange(query.from, query.to);
    const [rows] = await companies.readBatch(principal, legalEntityId, (scope) => [
      reconciliationPageStatement(scope, { counterpartyId: query.counterpartyId, from: query.from, to: query.to, offset: query.page * query.size, limit: query.size }),
    ]);
    const page = reconciliationPageOf(rows!);
    if (!page) throw new AppError('not-found', 'No counterparty with this id in this company');
    const opening = minor(page.opening);
    const closing = opening + minor(page.debit) - minor(page.credit);
    const first = page.lines[0];
    const pageOpening = first ? opening + minor(first.running!) - (minor(first.debit) - minor(first.credit)) : closing;
    const turnovers = sidesIn(query.view, { debit: uzs(minor(page.debit)), credit: uzs(minor(page.credit)) });
    return {
      counterpartyId: query.counterpartyId,
      counterpartyName: page.name,
      counterpartyTin: page.tin,
      from: query.from,
      to: query.to,
      view: query.view,
      openingBalance: uzs(balanceIn(query.view, opening)),
      turnoverDebit: turnovers.debit,
      turnoverCredit: turnovers.credit,
      closingBalance: uzs(balanceIn(query.view, closing)),
      pageOpeningBalance: uzs(balanceIn(query.view, pageOpening)),
      lines: page.lines.map((l) => toLine(l, query.view, opening + minor(l.running!))),
      page: query.page,
      size: query.size,
      totalElements: page.total,
      totalPages: Math.ceil(page.total / query.size),
    };
  }

  /**
   * The whole statement as CSV or XLSX: the opening balance, every line, the turnovers and the closing balance.
   * The head (a one-line page) checks the request and has the opening balance before the answer starts; the
   * turnovers and the closing balance are summed from the lines written, so the file adds up whatever is
   * posted while it is read.
   */
  async function reconciliationExport(principal: Principal, legalEntityId: string, query: StatementQuery, contentType: TableType): Promise<StreamReply<TableType>> {
    const head = await getReconciliationStatement(principal, legalEntityId, { ...query, page: 0, size: 1 });
    let through: string | null = null;
    const read = (after: ReconciliationPosition | null) =>
      companies.read(principal, legalEntityId, async (tx, scope) => {
        through ??= await lastEntryNumber(tx, scope);
        return reconciliationBatch(tx, scope, { counterpartyId: query.counterpartyId, from: query.from, to: query.to, through, after, limit: EXPORT_BATCH });
      });
    const firstBatch = await read(null);
    // The running balance, the company's debit minus credit, from the opening balance on (the head's is in the
    // view asked for; reading it in that view again gives the company's, each view being the other's negation).
    let net = balanceIn(query.view, minor(head.openingBalance));
    let debit = 0n;
    let credit = 0n;
    async function* batches(): AsyncGenerator<ExportRow[]> {
      yield [summaryRow('OPENING_BALANCE', query.from, 'Opening balance', { debit: null, credit: null, balance: head.openingBalance })];
      let rows = firstBatch;
      for (;;) {
        if (rows.length > 0) {
          yield rows.map((r) => {
            net += minor(r.debit) - minor(r.credit);
            debit += minor(r.debit);
            credit += minor(r.credit);
            return toLine(r, query.view, net);
          });
        }
        const last = rows[rows.length - 1];
        if (!last || rows.length < EXPORT_BATCH) break;
        rows = await read({ date: last.date, entryNumber: last.entryNumber, currency: last.currency });
      }
      const turnovers = sidesIn(query.view, { debit: uzs(debit), credit: uzs(credit) });
      yield [
        summaryRow('TURNOVERS', query.to, `Turnovers from ${query.from} to ${query.to}`, { ...turnovers, balance: null }),
        summaryRow('CLOSING_BALANCE', query.to, 'Closing balance', { debit: null, credit: null, balance: uzs(balanceIn(query.view, net)) }),
      ];
    }
    const view = query.view === 'COUNTERPARTY' ? '-counterparty-view' : '';
    const name = `reconciliation-statement-${legalEntityId}-${query.counterpartyId}-${query.from}-${query.to}${view}`;
    return tableReply(contentType, name, 'Reconciliation statement', exportColumns({ name: head.counterpartyName, tin: head.counterpartyTin }), batches(), xlsxThreads);
  }

  return { getReconciliationStatement, reconciliationExport };
}
