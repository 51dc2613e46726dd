import Decimal from 'decimal.js';
import { agingRows, type AgingRow } from '../../db/repositories/payments/aging';
import { DEFAULT_DOCUMENT_ACCOUNTS } from '../../core/invoices/invoices';
import { currencyDecimals } from '../../core/ledger/currency';
import type { Principal } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { CompanyScopes } from '../organisation/company-scope';

type Aging = Schemas['AgingReport'];
type Amounts = Omit<Aging['items'][number], 'counterpartyId' | 'name' | 'tin' | 'currency'>;

const FIELDS = ['notDue', 'days1to30', 'days31to60', 'days61to90', 'over90', 'outstanding', 'advances'] as const;

function amountsOf(row: AgingRow): Record<(typeof FIELDS)[number], string> {
  const places = currencyDecimals(row.currency);
  const f = (v: string) => new Decimal(v).toFixed(places);
  return {
    notDue: f(row.not_due),
    days1to30: f(row.days_1_to_30),
    days31to60: f(row.days_31_to_60),
    days61to90: f(row.days_61_to_90),
    over90: f(row.over_90),
    outstanding: f(row.outstanding),
    advances: f(row.advances),
  };
}

/** The aging of receivables or payables as of a date, per counterparty and currency, with totals per currency. */
export function createAging(companies: CompanyScopes) {
  async function getAgingReport(principal: Principal, legalEntityId: string, query: { asOf: string; side: 'RECEIVABLE' | 'PAYABLE' }): Promise<Aging> {
    const accounts = DEFAULT_DOCUMENT_ACCOUNTS;
    const receivable = query.side === 'RECEIVABLE';
    const rows = await companies.read(principal, legalEntityId, (tx, scope) =>
      agingRows(tx, scope, {
        asOf: query.asOf,
        kind: receivable ? 'SALES' : 'PURCHASE',
        direction: receivable ? 'IN' : 'OUT',
        settlementAccount: receivable ? accounts.receivable : accounts.payable,
        advanceAccount: receivable ? accounts.advancesReceived : accounts.advancesPaid,
        settlementSign: receivable ? 1 : -1,
      }),
    );
    const items = rows.map((r) => ({ counterpartyId: r.counterparty_id, name: r.name, tin: r.tin, currency: r.currency, ...amountsOf(r) }));
    const totals = new Map<string, Amounts>();
    for (const item of items) {
      const sum = totals.get(item.currency);
      const places = currencyDecimals(item.currency);
      totals.set(item.currency, Object.fromEntries(FIELDS.map((f) => [f, new Decimal(sum?.[f] ?? 0).plus(item[f]).toFixed(places)])) as Amounts);
    }
    return {
      asOf: query.asOf,
      side: query.side,
      settlementAccount: receivable ? accounts.receivable : accounts.payable,
      advanceAccount: receivable ? accounts.advancesReceived : accounts.advancesPaid,
      items,
      totals: [...totals].map(([currency, amounts]) => ({ currency, ...amounts })),
    };
  }
  return { getAgingReport };
}
