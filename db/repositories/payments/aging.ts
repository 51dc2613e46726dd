import type { Statement } from '../../connection';
import type { CompanyScope } from '../organisation/companies';

// The aging of receivables or payables (getAgingReport), per counterparty and currency, as of a date. It is
// read from the documents as they stood that day (invoices posted and not yet cancelled, allocations made and
// not yet released, payments not yet cancelled) plus the settlement and advance accounts' lines that no
// document posted (manual entries), so its totals are the accounts' balances by construction: per currency,
// the outstanding total is the settlement account's balance of that currency's lines (UZS lines for UZS,
// the foreign amounts for a foreign currency) and the advances total the advance account's. One statement.
//
// It reads the side's invoices dated by then from the index alone (migration 2026.11.29T02.30.00.aging-covering-index
// gave it the columns the aging reads), its payments, and of the allocations only those that changed
// since: what was allocated to an invoice (a payment) on the date is its running `allocated` sum (held equal
// to its live allocations at commit, migration 2026.11.26T15.00.00.payments) less what was allocated after the
// date plus what was released after it (none to read for an aging of today; migration
// 2026.11.28T10.00.00.aging-reads indexes allocations by both dates). The manual lines are the accounts' lines
// no document posted (`source_type` null, copied from the entry as a line is written), read from their partial
// index alone (migration 2026.11.28T22.30.00.journal-day-totals), however many lines the documents posted or
// how many entries were made by hand on other accounts. Owed amounts and advances are one union summed once
// per counterparty and currency (a GROUP BY treats a missing counterparty as one, as the report does).

export interface AgingRow {
  counterparty_id: string | null;
  name: string | null;
  tin: string | null;
  currency: string;
  not_due: string;
  days_1_to_30: string;
  days_31_to_60: string;
  days_61_to_90: string;
  over_90: string;
  outstanding: string;
  advances: string;
}

export interface AgingQuery {
  asOf: string;
  /** SALES for receivables, PURCHASE for payables. */
  kind: 'SALES' | 'PURCHASE';
  /** IN for receivables (advances received), OUT for payables (advances paid). */
  direction: 'IN' | 'OUT';
  settlementAccount: string;
  advanceAccount: string;
  /** +1 when the settlement account's debit is what is owed (4010), -1 when its credit is (6010). */
  settlementSign: 1 | -1;
}

/**
 * An item's bucket by its due date `due` (0 not due, 1 1–30 days past due, 2 31–60, 3 61–90, 4 over 90), its
 * bounds computed once from :asOf rather than a difference per item.
 */
const bucketOf = (due: string) =>
  `CASE WHEN ${due} >= CAST(:asOf AS date) THEN 0 WHEN ${due} >= CAST(:asOf AS date) - 30 THEN 1
        WHEN ${due} >= CAST(:asOf AS date) - 60 THEN 2 WHEN ${due} >= CAST(:asOf AS date) - 90 THEN 3 ELSE 4 END`;

/** The allocations made or released after :asOf (each CTE reads them itself: a CTE read twice would be materialized, and keep the items' scan from running in parallel). */
const CHANGED_SINCE = 'a.tenant_id = :tenantId AND a.legal_entity_id = :legalEntityId AND (a.allocation_date > :asOf OR a.released_date > :asOf)';

/** What such an allocation changes of its invoice's (payment's) allocated sum as of :asOf. */
const CHANGE = 'CASE WHEN a.released_date IS NULL THEN -a.amount WHEN a.allocation_date <= :asOf THEN a.amount ELSE 0 END';

/** An account's lines no document posted, by :asOf (journal_lines_manual_idx alone), in their currency (debit positive). */
const manualLines = (account: string) => `
       SELECT l.counterparty_id, coalesce(l.currency, 'UZS') AS currency, l.entry_date,
              CASE WHEN l.currency IS NULL THEN l.debit - l.credit WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END AS amount
         FROM journal_lines l
        WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = ${account}
          AND l.entry_date <= :asOf AND l.source_type IS NULL`;

/** The open items as of :asOf (counterparty, currency, bucket, owed, advance, invoice): invoices, manual lines, payments. */
const ITEMS = `invoice_changes AS (
       SELECT a.invoice_id, sum(${CHANGE}) AS amount FROM payment_allocations a WHERE ${CHANGED_SINCE} GROUP BY a.invoice_id
     ), payment_changes AS (
       SELECT a.payment_id, sum(${CHANGE}) AS amount FROM payment_allocations a WHERE ${CHANGED_SINCE} GROUP BY a.payment_id
     ), items AS (
       SELECT i.counterparty_id, i.currency, ${bucketOf('i.due_date')} AS bucket,
              CASE WHEN a.amount IS NULL THEN i.total_gross - i.allocated ELSE i.total_gross - i.allocated - a.amount END AS owed, CAST(0 AS numeric) AS advance,
              true AS invoice
         FROM invoices i LEFT JOIN invoice_changes a ON a.invoice_id = i.id
        WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.kind = :kind AND i.status <> 'DRAFT'
          AND i.invoice_date <= :asOf AND (i.cancellation_date IS NULL OR i.cancellation_date > :asOf)
       UNION ALL
       SELECT counterparty_id, currency, ${bucketOf('entry_date')}, :sign * amount, 0, false FROM (${manualLines(':settlementAccount')}) m
       UNION ALL
       SELECT p.counterparty_id, p.currency, NULL, 0, p.amount - p.allocated - coalesce(a.amount, 0), false
         FROM payments p LEFT JOIN payment_changes a ON a.payment_id = p.id
        WHERE p.tenant_id = :tenantId AND p.legal_entity_id = :legalEntityId AND p.direction = :direction
          AND p.payment_date <= :asOf AND (p.cancellation_date IS NULL OR p.cancellation_date > :asOf)
       UNION ALL
       SELECT counterparty_id, currency, NULL, 0, (0 - :sign) * amount, false FROM (${manualLines(':advanceAccount')}) m
     )`;

/** The buckets' sums of the items grouped, as the AgingRow columns (numeric). */
const SUMS = `coalesce(sum(owed) FILTER (WHERE bucket = 0), 0) AS not_due,
              coalesce(sum(owed) FILTER (WHERE bucket = 1), 0) AS days_1_to_30,
              coalesce(sum(owed) FILTER (WHERE bucket = 2), 0) AS days_31_to_60,
              coalesce(sum(owed) FILTER (WHERE bucket = 3), 0) AS days_61_to_90,
              coalesce(sum(owed) FILTER (WHERE bucket = 4), 0) AS over_90,
              coalesce(sum(owed), 0) AS outstanding, coalesce(sum(advance), 0) AS advances`;

const TEXT_COLUMNS = `not_due::text AS not_due, days_1_to_30::text AS days_1_to_30, days_31_to_60::text AS days_31_to_60,
            days_61_to_90::text AS days_61_to_90, over_90::text AS over_90, outstanding::text AS outstanding, advances::text AS advances`;

/**
 * The aging's rows: per counterparty and currency, those with an amount in a bucket or an advance (a
 * counterparty whose items net to nothing in every bucket is left out, so the rows add up to the items).
 */
export function agingStatement(scope: CompanyScope, query: AgingQuery): Statement {
  return {
    sql: `WITH ${ITEMS}, sums AS (
       SELECT counterparty_id, currency, ${SUMS} FROM items GROUP BY counterparty_id, currency
     )
     SELECT s.counterparty_id, c.name, coalesce(c.tin, c.pinfl) AS tin, s.currency, ${TEXT_COLUMNS}
       FROM sums s LEFT JOIN counterparties c ON c.tenant_id = :tenantId AND c.id = s.counterparty_id
      WHERE s.not_due <> 0 OR s.days_1_to_30 <> 0 OR s.days_31_to_60 <> 0 OR s.days_61_to_90 <> 0 OR s.over_90 <> 0 OR s.advances <> 0
      ORDER BY s.currency, c.name NULLS FIRST, s.counterparty_id`,
    replacements: { ...scope, ...query, sign: query.settlementSign },
  };
}

export type AgingTotalsRow = Omit<AgingRow, 'counterparty_id' | 'name' | 'tin'> & { overdue_invoices: string };

/**
 * The aging's totals per currency (the sums of its rows' columns, as the report's totals), without the rows:
 * the items summed per currency alone, for the overview; with the number of invoices past their due date with
 * something still owed on them.
 */
export function agingTotalsStatement(scope: CompanyScope, query: AgingQuery): Statement {
  return {
    sql: `WITH ${ITEMS}, sums AS (
       SELECT currency, ${SUMS}, count(*) FILTER (WHERE invoice AND bucket > 0 AND owed > 0) AS overdue_invoices FROM items GROUP BY currency
     )
     SELECT currency, ${TEXT_COLUMNS}, overdue_invoices FROM sums
      WHERE not_due <> 0 OR days_1_to_30 <> 0 OR days_31_to_60 <> 0 OR days_61_to_90 <> 0 OR over_90 <> 0 OR advances <> 0 OR overdue_invoices > 0
      ORDER BY currency`,
    replacements: { ...scope, ...query, sign: query.settlementSign },
  };
}
