import { selectRows, type Db } from '../../connection';
import type { CompanyScope } from '../organisation/companies';

// The aging of receivables or payables (getAgingReport), per counterparty and currency, as of a date. It is
// read from the documents as they stood that day (invoices posted and not yet cancelled, allocations made and
// not yet released, payments not yet cancelled) plus the settlement and advance accounts' lines that no
// document posted (manual entries), so its totals are the accounts' balances by construction: per currency,
// the outstanding total is the settlement account's balance of that currency's lines (UZS lines for UZS,
// the foreign amounts for a foreign currency) and the advances total the advance account's. One statement.

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

export async function agingRows(tx: Db, scope: CompanyScope, query: AgingQuery): Promise<AgingRow[]> {
  return selectRows<AgingRow>(
    tx,
    `WITH active_allocations AS (
       SELECT a.invoice_id, a.payment_id, a.amount FROM payment_allocations a
        WHERE a.tenant_id = :tenantId AND a.legal_entity_id = :legalEntityId AND a.allocation_date <= :asOf
          AND (a.released_date IS NULL OR a.released_date > :asOf)
     ), open_items AS (
       SELECT i.counterparty_id, i.currency, i.due_date AS due,
              i.total_gross - coalesce((SELECT sum(a.amount) FROM active_allocations a WHERE a.invoice_id = i.id), 0) AS amount
         FROM invoices i
        WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.kind = :kind AND i.status <> 'DRAFT'
          AND i.invoice_date <= :asOf AND (i.cancellation_date IS NULL OR i.cancellation_date > :asOf)
       UNION ALL
       SELECT l.counterparty_id, coalesce(l.currency, 'UZS'), l.entry_date,
              :sign * CASE WHEN l.currency IS NULL THEN l.debit - l.credit
                           WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END
         FROM journal_lines l JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id
        WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = :settlementAccount
          AND l.entry_date <= :asOf AND e.source_type IS NULL
     ), advances AS (
       SELECT p.counterparty_id, p.currency,
              p.amount - coalesce((SELECT sum(a.amount) FROM active_allocations a WHERE a.payment_id = p.id), 0) AS amount
         FROM payments p
        WHERE p.tenant_id = :tenantId AND p.legal_entity_id = :legalEntityId AND p.direction = :direction
          AND p.payment_date <= :asOf AND (p.cancellation_date IS NULL OR p.cancellation_date > :asOf)
       UNION ALL
       SELECT l.counterparty_id, coalesce(l.currency, 'UZS'),
              (0 - :sign) * CASE WHEN l.currency IS NULL THEN l.debit - l.credit
                            WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END
         FROM journal_lines l JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id
        WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = :advanceAccount
          AND l.entry_date <= :asOf AND e.source_type IS NULL
     ), buckets AS (
       SELECT counterparty_id, currency,
              coalesce(sum(amount) FILTER (WHERE CAST(:asOf AS date) - due <= 0), 0) AS not_due,
              coalesce(sum(amount) FILTER (WHERE CAST(:asOf AS date) - due BETWEEN 1 AND 30), 0) AS days_1_to_30,
              coalesce(sum(amount) FILTER (WHERE CAST(:asOf AS date) - due BETWEEN 31 AND 60), 0) AS days_31_to_60,
              coalesce(sum(amount) FILTER (WHERE CAST(:asOf AS date) - due BETWEEN 61 AND 90), 0) AS days_61_to_90,
              coalesce(sum(amount) FILTER (WHERE CAST(:asOf AS date) - due > 90), 0) AS over_90,
              sum(amount) AS outstanding
         FROM open_items GROUP BY counterparty_id, currency
     ), advance_sums AS (
       SELECT counterparty_id, currency, sum(amount) AS advances FROM advances GROUP BY counterparty_id, currency
     )
     SELECT coalesce(b.counterparty_id, s.counterparty_id) AS counterparty_id, c.name, coalesce(c.tin, c.pinfl) AS tin,
            coalesce(b.currency, s.currency) AS currency,
            coalesce(b.not_due, 0)::text AS not_due, coalesce(b.days_1_to_30, 0)::text AS days_1_to_30, coalesce(b.days_31_to_60, 0)::text AS days_31_to_60,
            coalesce(b.days_61_to_90, 0)::text AS days_61_to_90, coalesce(b.over_90, 0)::text AS over_90,
            coalesce(b.outstanding, 0)::text AS outstanding, coalesce(s.advances, 0)::text AS advances
       FROM buckets b
       FULL JOIN advance_sums s ON s.counterparty_id IS NOT DISTINCT FROM b.counterparty_id AND s.currency = b.currency
       LEFT JOIN counterparties c ON c.tenant_id = :tenantId AND c.id = coalesce(b.counterparty_id, s.counterparty_id)
      WHERE coalesce(b.outstanding, 0) <> 0 OR coalesce(s.advances, 0) <> 0
      ORDER BY coalesce(b.currency, s.currency), c.name NULLS FIRST, 1`,
    { ...scope, ...query, sign: query.settlementSign },
  );
}
