import type { Statement } from '../../connection';
import type { LedgerScope } from './journal';

// Operation: getCompanyOverview. What the overview adds to the reports it shares figures with (the trial
// balance's cumulative totals, the aging's totals): revenue and expenses per month by the accounts' types, the
// VAT invoices posted, the money accounts' days, and the counts of what waits. Each is a statement for a batch
// sent as one round trip. Raw SQL: aggregates over the lines' day totals and the documents.

export interface MonthResultRow {
  /** 'YYYY-MM'. */
  month: string;
  revenue: string;
  expenses: string;
}

/**
 * Per month of `from`..`to`, income accounts' credit less debit and expense accounts' debit less credit (the
 * accounts' types from the company's chart, read once), without the year-end closing entries; months without
 * lines are left out. Read from the lines' day totals, summed per month and account before the chart is joined.
 */
export function monthlyResultsStatement(scope: LedgerScope, range: { from: string; to: string }): Statement {
  return {
    sql: `WITH accounts AS MATERIALIZED (
            SELECT coalesce(g.code, c.code) AS code, coalesce(g.type, c.type) AS type
              FROM global_accounts g
              FULL JOIN (SELECT code, type FROM company_accounts WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId) c ON c.code = g.code
          ), turnovers AS (
            SELECT date_trunc('month', entry_date) AS month, account_code, sum(credit - debit) AS net
              FROM journal_day_totals
             WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND entry_date BETWEEN CAST(:from AS date) AND CAST(:to AS date) AND NOT year_end
             GROUP BY 1, 2
          )
          SELECT to_char(t.month, 'YYYY-MM') AS month,
                 coalesce(sum(t.net) FILTER (WHERE a.type = 'INCOME'), 0)::numeric(20, 2)::text AS revenue,
                 coalesce(-sum(t.net) FILTER (WHERE a.type = 'EXPENSE'), 0)::numeric(20, 2)::text AS expenses
            FROM turnovers t JOIN accounts a ON a.code = t.account_code AND a.type IN ('INCOME', 'EXPENSE')
           GROUP BY t.month
           ORDER BY t.month`,
    replacements: { ...scope, ...range },
  };
}

export interface WaitingRow {
  draft_invoices: string;
  unmatched_bank_lines: string;
  failed_webhook_deliveries: string;
  latest_rate_date: string | null;
}

/**
 * What waits: the company's draft invoices (a partial index), its bank lines not matched, the workspace's
 * failed webhook deliveries; and the newest day a CBU rate is stored for. (Overdue invoices are the aging's.)
 */
export function waitingStatement(scope: LedgerScope): Statement {
  return {
    sql: `SELECT (SELECT count(*) FROM invoices WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status = 'DRAFT') AS draft_invoices,
            (SELECT count(*) FROM bank_lines WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status <> 'MATCHED') AS unmatched_bank_lines,
            (SELECT count(*) FROM webhook_deliveries WHERE tenant_id = :tenantId AND state = 'FAILED') AS failed_webhook_deliveries,
            (SELECT to_char(max(effective_date), 'YYYY-MM-DD') FROM exchange_rates WHERE source = 'CBU') AS latest_rate_date`,
    replacements: { ...scope },
  };
}

/**
 * The VAT of `from`..`to` from the entries invoices posted, as the VAT register's `ledgerVat` reads it: the
 * output VAT account's credit less debit, the input VAT account's debit less credit; from the day totals of
 * the lines invoices posted.
 */
export function invoiceVatStatement(scope: LedgerScope, range: { from: string; to: string; outputVat: string; inputVat: string }): Statement {
  return {
    sql: `SELECT coalesce(sum(credit - debit) FILTER (WHERE account_code = :outputVat), 0)::numeric(20, 2)::text AS output,
            coalesce(sum(debit - credit) FILTER (WHERE account_code = :inputVat), 0)::numeric(20, 2)::text AS input
       FROM journal_day_totals
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND entry_date BETWEEN CAST(:from AS date) AND CAST(:to AS date)
        AND account_code IN (:outputVat, :inputVat) AND source_type = 'INVOICE'`,
    replacements: { ...scope, ...range },
  };
}

/** Per day of `from`..`to` with lines on them (`day`, `net`), the money accounts' (5000–5299) debit less credit in UZS, from the lines' day totals. */
export function dailyMoneyStatement(scope: LedgerScope, range: { from: string; to: string }): Statement {
  return {
    sql: `SELECT to_char(entry_date, 'YYYY-MM-DD') AS day, sum(debit - credit)::numeric(20, 2)::text AS net
       FROM journal_day_totals
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND account_code BETWEEN '5000' AND '5299'
        AND entry_date BETWEEN CAST(:from AS date) AND CAST(:to AS date)
      GROUP BY entry_date`,
    replacements: { ...scope, ...range },
  };
}
