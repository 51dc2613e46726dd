import { vatRegisterDataOf, vatRegisterStatement } from '../../db/repositories/invoices/vat-register';
import { DEFAULT_DOCUMENT_ACCOUNTS } from '../../core/invoices/invoices';
import { invoiceKindOf, monthRange, vatAccountOf, vatRegister, type VatSide } from '../../core/invoices/vat-register';
import type { Principal } from '../http/context';
import type { Schemas, StreamReply } from '../http/operation-handler';
import { tableReply, type Column, type TableType } from '../http/table-export';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { CompanyScopes } from '../organisation/company-scope';

// The monthly VAT register of sales or purchases (getVatRegister), as JSON, CSV or XLSX. One read: the
// company check and the register's one statement (its rows and the VAT account's turnover from invoice
// entries, from one snapshot) in one round trip; the rules (negated cancellations, totals, the tie) are
// core/invoices/vat-register.ts.

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

export function createVatRegister(companies: CompanyScopes, xlsxThreads: XlsxThreads) {
  async function getVatRegister(principal: Principal, legalEntityId: string, query: { month: string; side: VatSide }): Promise<VatRegister> {
    const { from, to } = monthRange(query.month);
    const [rows] = await companies.readBatch(principal, legalEntityId, (scope) => [
      vatRegisterStatement(scope, { kind: invoiceKindOf(query.side), from, to, vatAccount: vatAccountOf(query.side, DEFAULT_DOCUMENT_ACCOUNTS) }),
    ]);
    const data = vatRegisterDataOf(rows!);
    return { month: query.month, side: query.side, ...vatRegister(query.side, data.groups, data.turnover) };
  }

  /** The register's rows as CSV or XLSX. */
  function vatRegisterExport(contentType: TableType, legalEntityId: string, register: VatRegister): StreamReply<TableType> {
    const name = `vat-register-${legalEntityId}-${register.month}-${register.side.toLowerCase()}`;
    return tableReply(contentType, name, 'VAT register', vatRegisterColumns, [register.rows], xlsxThreads);
  }

  return { getVatRegister, vatRegisterExport };
}
