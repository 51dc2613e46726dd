import { selectResults, type Statement, type Tx } from '../../connection';
import { currencyDecimals } from '../../../core/ledger/currency';
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

type Amounts<Prefix extends string> = { [K in (typeof AMOUNTS)[number] as `${Prefix}${K}`]: string };

/** A row of the aging, its amounts with the currency's decimals; or (`total`) a currency's totals, without a counterparty. */
export type AgingRow = {
  total: boolean;
  counterparty_id: string | null;
  name: string | null;
  tin: string | null;
  currency: string;
  /** The seven amounts in the order of AMOUNTS, separated by a space (a NUMERIC's text has none): one value to read instead of seven. */
  amounts: string;
};

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

/** A counterparty as a key that equals itself when there is none (the lines without one are a row of their own), so keys hash and join. */
const keyOf = (column: string) => `coalesce(${column}, '00000000-0000-0000-0000-000000000000'::uuid)`;

/** An account's lines no document posted, by :asOf (journal_lines_manual_idx alone), in their currency (debit positive). */
const manualLines = (account: string) => `
       SELECT l.counterparty_id, coalesce(l.currency, 'UZS') AS currency, l.entry_date,
              CASE WHEN l.currency IS NULL THEN l.debit - l.credit WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END AS amount
         FROM journal_lines l
        WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = ${account}
          AND l.entry_date <= :asOf AND l.source_type IS NULL`;

/**
 * The open items as of :asOf (counterparty, currency, bucket, owed, advance, invoice): invoices, manual lines,
 * payments; all of the side's, or with `only` those of the counterparties a CTE of that name lists (its `key`,
 * as `keyOf`).
 */
const items = (only?: string) => {
  const ofCounterparty = (column: string) => (only ? `AND ${column} IN (SELECT key FROM ${only})` : '');
  const manualOf = (alias: string) => (only ? `WHERE ${keyOf(`${alias}.counterparty_id`)} IN (SELECT key FROM ${only})` : '');
  return `invoice_changes AS (
       SELECT a.invoice_id, sum(${CHANGE}) AS amount FROM payment_allocations a WHERE ${CHANGED_SINCE} GROUP BY a.invoice_id
     ), payment_changes AS (
       SELECT a.payment_id, sum(${CHANGE}) AS amount FROM payment_allocations a WHERE ${CHANGED_SINCE} GROUP BY a.payment_id
     ), items AS (
       SELECT i.counterparty_id, i.currency, ${bucketOf('i.due_date')} AS bucket,
              CASE WHEN a.amount IS NULL THEN i.total_gross - i.allocated ELSE i.total_gross - i.allocated - a.amount END AS owed, CAST(0 AS numeric) AS advance,
              true AS invoice
         FROM invoices i LEFT JOIN invoice_changes a ON a.invoice_id = i.id
        WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.kind = :kind AND i.status <> 'DRAFT'
          AND i.invoice_date <= :asOf AND (i.cancellation_date IS NULL OR i.cancellation_date > :asOf) ${ofCounterparty('i.counterparty_id')}
       UNION ALL
       SELECT counterparty_id, currency, ${bucketOf('entry_date')}, :sign * amount, 0, false FROM (${manualLines(':settlementAccount')}) m ${manualOf('m')}
       UNION ALL
       SELECT p.counterparty_id, p.currency, NULL, 0, p.amount - p.allocated - coalesce(a.amount, 0), false
         FROM payments p LEFT JOIN payment_changes a ON a.payment_id = p.id
        WHERE p.tenant_id = :tenantId AND p.legal_entity_id = :legalEntityId AND p.direction = :direction
          AND p.payment_date <= :asOf AND (p.cancellation_date IS NULL OR p.cancellation_date > :asOf) ${ofCounterparty('p.counterparty_id')}
       UNION ALL
       SELECT counterparty_id, currency, NULL, 0, (0 - :sign) * amount, false FROM (${manualLines(':advanceAccount')}) m ${manualOf('m')}
     )`;
};

/** The buckets' sums of the items grouped, as the AgingRow columns (numeric). */
const SUMS = `coalesce(sum(owed) FILTER (WHERE bucket = 0), 0) AS not_due,
              coalesce(sum(owed) FILTER (WHERE bucket = 1), 0) AS days_1_to_30,
              coalesce(sum(owed) FILTER (WHERE bucket = 2), 0) AS days_31_to_60,
              coalesce(sum(owed) FILTER (WHERE bucket = 3), 0) AS days_61_to_90,
              coalesce(sum(owed) FILTER (WHERE bucket = 4), 0) AS over_90,
              coalesce(sum(owed), 0) AS outstanding, coalesce(sum(advance), 0) AS advances`;

const TEXT_COLUMNS = `not_due::text AS not_due, days_1_to_30::text AS days_1_to_30, days_31_to_60::text AS days_31_to_60,
            days_61_to_90::text AS days_61_to_90, over_90::text AS over_90, outstanding::text AS outstanding, advances::text AS advances`;

/** Whether a group of items `s` is a row: an amount in a bucket or an advance. */
const IS_ROW = (s: string) =>
  `${s}.not_due <> 0 OR ${s}.days_1_to_30 <> 0 OR ${s}.days_31_to_60 <> 0 OR ${s}.days_61_to_90 <> 0 OR ${s}.over_90 <> 0 OR ${s}.advances <> 0`;

const AMOUNTS = ['not_due', 'days_1_to_30', 'days_31_to_60', 'days_61_to_90', 'over_90', 'outstanding', 'advances'] as const;

/** The currencies whose amounts have other than two decimals (JPY 0, KWD 3), as JSON for the statements' `:decimals`. */
const OTHER_DECIMALS = JSON.stringify(
  Object.fromEntries(Intl.supportedValuesOf('currency').map((code) => [code, currencyDecimals(code)]).filter(([, places]) => places !== 2)),
);

/** The decimals of a currency's amounts in a statement (`:decimals`: OTHER_DECIMALS; two for the rest). */
const placesOf = (currency: string) => `coalesce(CAST(CAST(:decimals AS jsonb) ->> ${currency} AS int), 2)`;

/**
 * The groups of the CTE `grouped` (per counterparty and currency) with the counterparty's name and TIN, each
 * amount with its currency's decimals (rounded half away from zero, as the ledger's amounts are); `extra`
 * columns of the groups as they are.
 */
const named = (grouped: string, extra = '') => `SELECT g.counterparty_id, c.name, coalesce(c.tin, c.pinfl) AS tin, g.currency,
              ${AMOUNTS.map((a) => `round(g.${a}, ${placesOf('g.currency')}) AS ${a}`).join(', ')}${extra}
         FROM ${grouped} g LEFT JOIN counterparties c ON c.tenant_id = :tenantId AND c.id = g.counterparty_id`;

/**
 * The report's rows of the CTE `sums` (as `named`), in the report's order, then a row of totals per currency
 * (`total`: the sums of its rows' amounts as written), so the answer is the statement's text, with no number
 * parsed in the API.
 */
const ROWS = `SELECT false AS total, s.counterparty_id, s.name, s.tin, s.currency, concat_ws(' ', ${AMOUNTS.map((a) => `s.${a}`).join(', ')}) AS amounts
       FROM sums s WHERE ${IS_ROW('s')}
      UNION ALL
     SELECT true, NULL, NULL, NULL, s.currency, concat_ws(' ', ${AMOUNTS.map((a) => `sum(s.${a})`).join(', ')})
       FROM sums s WHERE ${IS_ROW('s')} GROUP BY s.currency
      ORDER BY total, currency, name NULLS FIRST, counterparty_id`;

/** The items grouped per counterparty and currency, with the invoices past due with something owed (the overview's count). */
const GROUPED = `SELECT counterparty_id, currency, ${SUMS}, count(*) FILTER (WHERE invoice AND bucket > 0 AND owed > 0) AS overdue_invoices
         FROM items GROUP BY counterparty_id, currency`;

/**
 * The aging's rows: per counterparty and currency, those with an amount in a bucket or an advance (a
 * counterparty whose items net to nothing in every bucket is left out, so the rows add up to the items).
 * Computed from the documents alone, as a build computes them: what the kept aging is checked against.
 */
export function agingStatement(scope: CompanyScope, query: AgingQuery): Statement {
  return {
    sql: `WITH ${items()}, grouped AS (
       SELECT counterparty_id, currency, ${SUMS} FROM items GROUP BY counterparty_id, currency
     ), sums AS (
       ${named('grouped')}
     )
     ${ROWS}`,
    replacements: { ...scope, ...query, sign: query.settlementSign, decimals: OTHER_DECIMALS },
  };
}

export type AgingSide = 'RECEIVABLE' | 'PAYABLE';

/** The kept aging of the side at :asOf (none when it is kept at another date, or not at all), and the counterparties changed since. */
const HEAD = `head AS (
       SELECT build_id, snapshot FROM aging_snapshots
        WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND side = :side AND as_of = :asOf
     ), changed AS MATERIALIZED (
       SELECT ${keyOf('m.counterparty_id')} AS key FROM aging_marks m, head
        WHERE m.tenant_id = :tenantId AND m.legal_entity_id = :legalEntityId AND NOT pg_visible_in_snapshot(m.xid, head.snapshot)
     )`;

/**
 * Whether the side's aging is kept at :asOf, and how many counterparties have changed since it was built: no
 * row when it is not kept at that date (migration 2026.11.29T14.00.00.aging-kept).
 */
export function agingKeptStateStatement(scope: CompanyScope, side: AgingSide, asOf: string): Statement {
  return {
    sql: `WITH ${HEAD} SELECT (SELECT count(*) FROM changed)::int AS changed FROM head`,
    replacements: { ...scope, side, asOf },
  };
}

/**
 * The aging's rows as `agingStatement`, from the kept aging at :asOf: its rows for the counterparties not
 * changed since it was built, and the changed ones' computed from their documents, in the statement's one
 * snapshot. No rows when the aging is not kept at :asOf, or (with `maxChanged`) more than that many
 * counterparties changed (`agingKeptStateStatement`, in the same snapshot, tells these apart from an empty aging).
 */
export function agingKeptStatement(scope: CompanyScope, query: AgingQuery & { side: AgingSide }, maxChanged: number | null): Statement {
  return {
    sql: `WITH ${HEAD}, usable AS (
       SELECT build_id FROM head WHERE ${maxChanged === null ? 'true' : '(SELECT count(*) FROM changed) <= :maxChanged'}
     ), ${items('changed')}, fresh AS (
       SELECT counterparty_id, currency, ${SUMS} FROM items WHERE EXISTS (SELECT 1 FROM usable) GROUP BY counterparty_id, currency
     ), sums AS (
       SELECT r.counterparty_id, r.name, r.tin, r.currency, ${AMOUNTS.map((a) => `r.${a}`).join(', ')}
         FROM aging_kept_rows r JOIN usable u ON u.build_id = r.build_id
        WHERE r.tenant_id = :tenantId AND r.legal_entity_id = :legalEntityId AND r.side = :side
          AND ${keyOf('r.counterparty_id')} NOT IN (SELECT key FROM changed)
       UNION ALL
       ${named('fresh')}
     )
     ${ROWS}`,
    replacements: { ...scope, ...query, sign: query.settlementSign, maxChanged, decimals: OTHER_DECIMALS },
  };
}

/** Builds of one company's agings follow each other: each takes this lock (until its transaction ends) before its statement. */
export function agingBuildLockStatement(scope: CompanyScope): Statement {
  return { sql: "SELECT pg_advisory_xact_lock(hashtextextended('aging ' || :legalEntityId, 0))", replacements: { ...scope } };
}

/**
 * Builds the side's kept aging at :asOf and answers its rows as `agingStatement`: one statement, so the rows
 * kept, the snapshot recorded with them and the rows answered are of one snapshot. It replaces the side's kept
 * rows (the older builds' rows, which readers of an older snapshot may still read, are deleted: MVCC keeps them
 * for those readers) and deletes the marks that this snapshot and the other side's kept one both see. Run in a
 * read-committed transaction after `agingBuildLockStatement`, so it sees every earlier build's effects.
 */
export function agingBuildStatement(scope: CompanyScope, query: AgingQuery & { side: AgingSide }): Statement {
  return {
    sql: `WITH ${items()}, grouped AS (
       ${GROUPED}
     ), sums AS (
       ${named('grouped', ', g.overdue_invoices')}
     ), build AS (
       SELECT nextval('aging_builds') AS id
     ), cleared AS (
       DELETE FROM aging_kept_rows WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND side = :side
     ), kept AS (
       INSERT INTO aging_kept_rows (tenant_id, legal_entity_id, side, build_id, counterparty_id, name, tin, currency, ${AMOUNTS.join(', ')}, overdue_invoices)
       SELECT :tenantId, :legalEntityId, :side, b.id, s.counterparty_id, s.name, s.tin, s.currency, ${AMOUNTS.map((a) => `s.${a}`).join(', ')}, s.overdue_invoices
         FROM sums s, build b WHERE ${IS_ROW('s')} OR s.overdue_invoices > 0
     ), head AS (
       INSERT INTO aging_snapshots AS s (tenant_id, legal_entity_id, side, as_of, snapshot, build_id)
       SELECT :tenantId, :legalEntityId, :side, :asOf, pg_current_snapshot(), b.id FROM build b
       ON CONFLICT (tenant_id, legal_entity_id, side)
       DO UPDATE SET as_of = excluded.as_of, snapshot = excluded.snapshot, build_id = excluded.build_id, built_at = now()
     ), seen AS (
       DELETE FROM aging_marks WHERE ctid IN (
         SELECT m.ctid FROM aging_marks m
          WHERE m.tenant_id = :tenantId AND m.legal_entity_id = :legalEntityId AND pg_visible_in_snapshot(m.xid, pg_current_snapshot())
            AND NOT EXISTS (SELECT 1 FROM aging_snapshots o WHERE o.tenant_id = :tenantId AND o.legal_entity_id = :legalEntityId AND o.side <> :side
                              AND NOT pg_visible_in_snapshot(m.xid, o.snapshot))
            FOR UPDATE SKIP LOCKED)
     )
     ${ROWS}`,
    replacements: { ...scope, ...query, sign: query.settlementSign, decimals: OTHER_DECIMALS },
  };
}

export type AgingTotalsRow = { currency: string } & Amounts<''> & { overdue_invoices: string };

/**
 * The aging's totals per currency (the sums of its rows' columns, as the report's totals), without the rows:
 * the items summed per currency alone, for the overview; with the number of invoices past their due date with
 * something still owed on them.
 */
export function agingTotalsStatement(scope: CompanyScope, query: AgingQuery): Statement {
  return {
    sql: `WITH ${items()}, sums AS (
       SELECT currency, ${SUMS}, count(*) FILTER (WHERE invoice AND bucket > 0 AND owed > 0) AS overdue_invoices FROM items GROUP BY currency
     )
     SELECT currency, ${TEXT_COLUMNS}, overdue_invoices FROM sums
      WHERE not_due <> 0 OR days_1_to_30 <> 0 OR days_31_to_60 <> 0 OR days_61_to_90 <> 0 OR over_90 <> 0 OR advances <> 0 OR overdue_invoices > 0
      ORDER BY currency`,
    replacements: { ...scope, ...query, sign: query.settlementSign },
  };
}

/** Counterparties changed since the kept aging was built, past which it is built again rather than patched. */
const AGING_MAX_CHANGED = 500;

/** The aging's statements group per counterparty and currency: 100,000 invoices of 5,000 customers hash to about 12 MB (SET LOCAL ends with the transaction). */
const AGING_WORK_MEM: Statement = { sql: "SET LOCAL work_mem = '32MB'" };

/**
 * A read of the kept aging for a read-only batch (one snapshot): the statement's memory, the kept state, and the
 * rows when the aging is kept at :asOf with at most AGING_MAX_CHANGED counterparties changed since. `keptRows`
 * reads their results.
 */
export function keptAgingRead(scope: CompanyScope, query: AgingQuery & { side: AgingSide }): Statement[] {
  return [AGING_WORK_MEM, agingKeptStateStatement(scope, query.side, query.asOf), agingKeptStatement(scope, query, AGING_MAX_CHANGED)];
}

/** The rows of a `keptAgingRead`'s results, or null when the aging is not kept at that date or too much changed since. */
export function keptRows([, state, rows]: Record<string, unknown>[][]): AgingRow[] | null {
  return isKept(state!) ? (rows as unknown as AgingRow[]) : null;
}

/** Whether `agingKeptStateStatement` found the aging kept, with few enough counterparties changed since. */
function isKept(state: Record<string, unknown>[]): boolean {
  return state.length === 1 && Number(state[0]!.changed) <= AGING_MAX_CHANGED;
}

/**
 * The side's aging at :asOf in a read-committed transaction (the caller's company check made), after a
 * `keptAgingRead` found it not kept: this waits for any build of the company, then answers from the kept aging
 * when a build it waited for made it usable, or else builds it. The state and the rows are two statements here,
 * each with its own snapshot, so the rows are read without the limit on changes (a change committed between
 * them is patched, not taken for an aging that is not kept).
 */
export async function readOrBuildAging(tx: Tx, scope: CompanyScope, query: AgingQuery & { side: AgingSide }): Promise<AgingRow[]> {
  const [, , state] = await selectResults(tx, [AGING_WORK_MEM, agingBuildLockStatement(scope), agingKeptStateStatement(scope, query.side, query.asOf)]);
  const [rows] = await selectResults(tx, [isKept(state!) ? agingKeptStatement(scope, query, null) : agingBuildStatement(scope, query)]);
  return rows as unknown as AgingRow[];
}
