import { vatRegisterBatch, vatRegisterPageOf, vatRegisterPageStatements, type VatRegisterPosition } from '../../db/repositories/invoices/vat-register';
import { DEFAULT_DOCUMENT_ACCOUNTS } from '../../core/invoices/invoices';
import { invoiceKindOf, monthRange, vatAccountOf, vatRegisterRows, vatRegisterTotals, type VatSide } from '../../core/invoices/vat-register';
import type { Principal } from '../http/context';
import type { Schemas, StreamReply } from '../http/operation-handler';
import type { PageQuery } from '../http/pages';
import { tableReply, type Column, type TableType } from '../http/table-export';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { CompanyScopes } from '../organisation/company-scope';
import { EXPORT_BATCH } from '../ledger/exports';

// The monthly VAT register of sales or purchases (getVatRegister). As JSON, a page of its rows with the whole
// month's totals and `ledgerVat`, read in one round trip (the company check and one statement: one snapshot,
// so they tie); as CSV or XLSX, every row, read EXPORT_BATCH documents at a time after the last one written
// (keyset), each batch in a transaction of its own, as the journal's and the account statement's exports are.
// A month of 20,000 invoices is 35,000 rows and 12 MB of JSON: whole in one answer, a few such requests at once
// exhausted the API's 128 MB heap, so every answer here is bounded by a page or a batch. The rules (negated
// cancellations, gross, totals, the tie) are core/invoices/vat-register.ts.

type VatRegister = Schemas['VatRegister'];
type VatRegisterRow = Schemas['VatRegisterRow'];

const UUID_WIDTH = 38;

/** A row per register row, the JSON fields' names as headers; the totals and ledgerVat are the JSON answer's. */
const vatRegisterColumns: Column<VatRegisterRow>[] = [
  { header: 'invoiceId', kind: 'code', width: UUID_WIDTH, value: (r) => r.invoiceId },
  { header: 'kind', kind: 'code', value: (r) => r.kind },
  { header: 'number', kind: 'text', width: 20, value: (r) => r.number },
  { header: 'date', kind: 'code', value: (r) => r.date },
  { header: 'counterpartyId', kind: 'code', width: UUID_WIDTH, value: (r) => r.counterpartyId },
  { header: 'counterpartyName', kind: 'text', value: (r) => r.counterpartyName },
  { header: 'counterpartyTin', kind: 'code', width: 16, value: (r) => r.counterpartyTin },
  { header: 'vatRegistrationCode', kind: 'code', width: 16, value: (r) => r.vatRegistrationCode },
  { header: 'currency', kind: 'code', width: 10, value: (r) => r.currency },
  { header: 'rate', kind: 'amount', width: 10, value: (r) => (r.rate === null ? null : String(r.rate)) },
  { header: 'net', kind: 'amount', value: (r) => r.net },
  { header: 'vat', kind: 'amount', value: (r) => r.vat },
  { header: 'gross', kind: 'amount', value: (r) => r.gross },
];

interface RegisterQuery {
  month: string;
  side: VatSide;
}

/** The month's days and the side's invoices; 400 for a month before 1900. */
const registerQuery = (query: RegisterQuery) => ({ ...monthRange(query.month), kind: invoiceKindOf(query.side) });

export function createVatRegister(companies: CompanyScopes, xlsxThreads: XlsxThreads) {
  async function getVatRegister(principal: Principal, legalEntityId: string, query: RegisterQuery & PageQuery): Promise<VatRegister> {
    const range = registerQuery(query);
    const results = await companies.readBatch(principal, legalEntityId, (scope) =>
      vatRegisterPageStatements(scope, {
        ...range,
        vatAccount: vatAccountOf(query.side, DEFAULT_DOCUMENT_ACCOUNTS),
        offset: query.page * query.size,
        limit: query.size,
      }),
    );
    const page = vatRegisterPageOf(results);
    return {
      month: query.month,
      side: query.side,
      rows: vatRegisterRows(page.groups),
      ...vatRegisterTotals(query.side, page.sums, page.turnover),
      page: query.page,
      size: query.size,
      totalElements: page.total,
      totalPages: Math.ceil(page.total / query.size),
    };
  }

  /**
   * Every row of the month as CSV or XLSX. The first batch is read before this returns, so an unknown company
   * or a month before 1900 is refused as a problem, not a cut download; the rest while the answer is written.
   */
  async function vatRegisterExport(principal: Principal, legalEntityId: string, query: RegisterQuery, contentType: TableType): Promise<StreamReply<TableType>> {
    const range = registerQuery(query);
    const read = (after: VatRegisterPosition | null) =>
      companies.read(principal, legalEntityId, (tx, scope) => vatRegisterBatch(tx, scope, { ...range, after, limit: EXPORT_BATCH }));
    const first = await read(null);
    async function* batches(): AsyncGenerator<VatRegisterRow[]> {
      let groups = first;
      for (;;) {
        if (groups.length > 0) yield vatRegisterRows(groups);
        // A batch is whole documents: fewer than EXPORT_BATCH of them was the last.
        const last = groups[groups.length - 1];
        if (!last || new Set(groups.map((g) => `${g.invoiceId}/${g.kind}`)).size < EXPORT_BATCH) return;
        groups = await read({ date: last.date, number: last.number, invoiceId: last.invoiceId, cancellation: last.kind === 'CANCELLATION' });
      }
    }
    const name = `vat-register-${legalEntityId}-${query.month}-${query.side.toLowerCase()}`;
    return tableReply(contentType, name, 'VAT register', vatRegisterColumns, batches(), xlsxThreads);
  }

  return { getVatRegister, vatRegisterExport };
}
