import { keptAgingRead, keptRows, readOrBuildAging } from '../../db/repositories/payments/aging';
import { DEFAULT_DOCUMENT_ACCOUNTS } from '../../core/invoices/invoices';
import type { Principal } from '../http/context';
import type { Schemas, StreamReply } from '../http/operation-handler';
import { tableReply, type Column, type TableType } from '../http/table-export';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { CompanyScopes } from '../organisation/company-scope';

type Aging = Schemas['AgingReport'];
type AgingItem = Aging['items'][number];

const FIELDS = ['notDue', 'days1to30', 'days31to60', 'days61to90', 'over90', 'outstanding', 'advances'] as const;

/**
 * A row per item (counterparty and currency), the JSON fields' names as headers; the totals per currency are
 * the JSON answer's (each currency's rows sum to them), as the other reports' exports leave their totals out.
 */
const agingColumns: Column<AgingItem>[] = [
  { header: 'counterpartyId', kind: 'code', width: 38, value: (r) => r.counterpartyId },
  { header: 'name', kind: 'text', value: (r) => r.name },
  { header: 'tin', kind: 'code', width: 16, value: (r) => r.tin },
  { header: 'currency', kind: 'code', width: 10, value: (r) => r.currency },
  ...FIELDS.map((field): Column<AgingItem> => ({ header: field, kind: 'amount', value: (r) => r[field] })),
];

/**
 * The aging of receivables or payables as of a date, per counterparty and currency, with totals per currency.
 * Each amount is written with its currency's decimals; a total is the sum of the rows' amounts as written. Both
 * are the statement's text (db/repositories/payments/aging.ts): a report of thousands of counterparties is
 * seven amounts each, passed through rather than parsed and written again.
 */
export function createAging(companies: CompanyScopes, xlsxThreads: XlsxThreads) {
  async function getAgingReport(principal: Principal, legalEntityId: string, query: { asOf: string; side: 'RECEIVABLE' | 'PAYABLE' }): Promise<Aging> {
    const accounts = DEFAULT_DOCUMENT_ACCOUNTS;
    const receivable = query.side === 'RECEIVABLE';
    const aging = {
      asOf: query.asOf,
      side: query.side,
      kind: receivable ? ('SALES' as const) : ('PURCHASE' as const),
      direction: receivable ? ('IN' as const) : ('OUT' as const),
      settlementAccount: receivable ? accounts.receivable : accounts.payable,
      advanceAccount: receivable ? accounts.advancesReceived : accounts.advancesPaid,
      settlementSign: receivable ? (1 as const) : (-1 as const),
    };
    // One round trip when the aging is kept at that date (the company check, the kept rows and the changed
    // counterparties' from their documents, in one snapshot); otherwise it is built, and kept for the next.
    const rows =
      keptRows(await companies.readBatch(principal, legalEntityId, (scope) => keptAgingRead(scope, aging))) ??
      (await companies.read(principal, legalEntityId, (tx, scope) => readOrBuildAging(tx, scope, aging)));
    // The amounts are the statement's text, with their currency's decimals; each currency's totals are a row after the items.
    const items: AgingItem[] = [];
    const totals: Aging['totals'] = [];
    for (const row of rows) {
      const [notDue, days1to30, days31to60, days61to90, over90, outstanding, advances] = row.amounts.split(' ') as [string, string, string, string, string, string, string];
      const amounts = { notDue, days1to30, days31to60, days61to90, over90, outstanding, advances };
      if (row.total) totals.push({ currency: row.currency, ...amounts });
      else items.push({ counterpartyId: row.counterparty_id, name: row.name, tin: row.tin, currency: row.currency, ...amounts });
    }
    return {
      asOf: query.asOf,
      side: query.side,
      settlementAccount: aging.settlementAccount,
      advanceAccount: aging.advanceAccount,
      items,
      totals,
    };
  }
  /** The report's items as CSV or XLSX: one company's counterparties, built as for JSON and written out. */
  function agingExport(contentType: TableType, legalEntityId: string, report: Aging): StreamReply<TableType> {
    const name = `aging-${legalEntityId}-${report.asOf}-${report.side.toLowerCase()}`;
    return tableReply(contentType, name, 'Aging', agingColumns, [report.items], xlsxThreads);
  }

  return { getAgingReport, agingExport };
}
