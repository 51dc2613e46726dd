import { selectRows, type Db } from '../../connection';
import type { LedgerScope } from './journal';

// Operation: getCompanyOverview. What the overview adds to the reports it shares figures with (the trial
// balance's cumulative totals, the aging's rows): revenue and expenses per month by the accounts' types, and
// the counts of what waits. Raw SQL: aggregates over the journal and the documents.

export interface MonthResultRow {
  /** 'YYYY-MM'. */
  month: string;
  revenue: string;
  expenses: string;
}

/**
 * Per month of `from`..`to`, income accounts' credit less debit and expense accounts' debit less credit (the
 * accounts' types from the company's chart), without the year-end closing entries; months without lines are
 * left out. The income and expense codes are read first (a few hundred at most) and the lines matched against
 * them as lists: joined to the chart's view instead, the planner compared every line with every account.
 */
export async function monthlyResults(tx: Db, scope: LedgerScope, range: { from: string; to: string }): Promise<MonthResultRow[]> {
  const types = await selectRows<{ code: string; type: string }>(
    tx,
    `SELECT coalesce(g.code, c.code) AS code, coalesce(g.type, c.type) AS type
       FROM global_accounts g
       FULL JOIN (SELECT code, type FROM company_accounts WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId) c ON c.code = g.code`,
    { ...scope },
  );
  const income = types.filter((t) => t.type === 'INCOME').map((t) => t.code);
  const expense = types.filter((t) => t.type === 'EXPENSE').map((t) => t.code);
  if (income.length + expense.length === 0) return [];
  // An empty list would be ARRAY[]: a code no account has stands in for it.
  const list = (codes: string[]) => (codes.length > 0 ? codes : ['----']);
  return selectRows<MonthResultRow>(
    tx,
    `SELECT to_char(month, 'YYYY-MM') AS month, revenue::numeric(20, 2)::text AS revenue, expenses::numeric(20, 2)::text AS expenses
       FROM (SELECT date_trunc('month', l.entry_date) AS month,
                    coalesce(sum(l.credit - l.debit) FILTER (WHERE l.account_code = ANY(ARRAY[:income]::text[])), 0) AS revenue,
                    coalesce(sum(l.debit - l.credit) FILTER (WHERE l.account_code = ANY(ARRAY[:expense]::text[])), 0) AS expenses
               FROM journal_lines l
              WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.entry_date BETWEEN CAST(:from AS date) AND CAST(:to AS date)
                AND l.account_code = ANY(ARRAY[:codes]::text[])
                AND (NOT l.system_line OR NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.tenant_id = l.tenant_id AND e.id = l.entry_id AND e.kind = 'YEAR_END_CLOSING'))
              GROUP BY 1) m
      ORDER BY 1`,
    { ...scope, from: range.from, to: range.to, income: list(income), expense: list(expense), codes: [...income, ...expense] },
  );
}

export interface WaitingRow {
  draft_invoices: string;
  overdue_invoices: string;
  unmatched_bank_lines: string;
  failed_webhook_deliveries: string;
  latest_rate_date: string | null;
}

/**
 * What waits on `asOf`: the company's draft invoices, its posted invoices past their due date that are not
 * settled (as allocated now), its bank lines not matched, the workspace's failed webhook deliveries; and the
 * newest day a CBU rate is stored for.
 */
export async function waitingCounts(tx: Db, scope: LedgerScope, asOf: string): Promise<WaitingRow> {
  const [row] = await selectRows<WaitingRow>(
    tx,
    `SELECT (SELECT count(*) FROM invoices WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status = 'DRAFT') AS draft_invoices,
            (SELECT count(*) FROM invoices WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status = 'POSTED'
                AND due_date < CAST(:asOf AS date) AND allocated < total_gross) AS overdue_invoices,
            (SELECT count(*) FROM bank_lines WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND status <> 'MATCHED') AS unmatched_bank_lines,
            (SELECT count(*) FROM webhook_deliveries WHERE tenant_id = :tenantId AND state = 'FAILED') AS failed_webhook_deliveries,
            (SELECT to_char(max(effective_date), 'YYYY-MM-DD') FROM exchange_rates WHERE source = 'CBU') AS latest_rate_date`,
    { ...scope, asOf },
  );
  return row!;
}

/**
 * The VAT of `from`..`to` from the entries invoices posted, as the VAT register's `ledgerVat` reads it: the
 * output VAT account's credit less debit, the input VAT account's debit less credit.
 */
export async function invoiceVat(tx: Db, scope: LedgerScope, range: { from: string; to: string; outputVat: string; inputVat: string }): Promise<{ output: string; input: string }> {
  const [row] = await selectRows<{ output: string; input: string }>(
    tx,
    `SELECT coalesce(sum(l.credit - l.debit) FILTER (WHERE l.account_code = :outputVat), 0)::numeric(20, 2)::text AS output,
            coalesce(sum(l.debit - l.credit) FILTER (WHERE l.account_code = :inputVat), 0)::numeric(20, 2)::text AS input
       FROM journal_lines l
       JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id AND e.entry_date = l.entry_date
      WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code IN (:outputVat, :inputVat)
        AND l.entry_date BETWEEN CAST(:from AS date) AND CAST(:to AS date)
        AND e.legal_entity_id = :legalEntityId AND e.source_type = 'INVOICE' AND e.entry_date BETWEEN CAST(:from AS date) AND CAST(:to AS date)`,
    { ...scope, ...range },
  );
  return row!;
}

/** Per day of `from`..`to` with lines on them, the money accounts' (5000–5299) debit less credit in UZS. */
export function dailyMoneyTurnovers(tx: Db, scope: LedgerScope, range: { from: string; to: string }): Promise<Array<{ day: string; net: string }>> {
  return selectRows<{ day: string; net: string }>(
    tx,
    `SELECT to_char(entry_date, 'YYYY-MM-DD') AS day, sum(debit - credit)::numeric(20, 2)::text AS net
       FROM journal_lines
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND account_code BETWEEN '5000' AND '5299'
        AND entry_date BETWEEN CAST(:from AS date) AND CAST(:to AS date)
      GROUP BY entry_date`,
    { ...scope, ...range },
  );
}
