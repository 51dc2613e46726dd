import { selectRows, type Db } from '../../connection';
import type { LedgerScope } from './journal';

// The ledger's reports: the turnovers of a date range per account, subaccount and currency (the turnover
// sheet), and one account's lines with their running balance (the account statement). Serves
// getTurnoverSheet and getAccountStatement; their opening balances are period-closes.ts balancesThrough (the
// last snapshot plus the day totals after it), except by counterparty: the snapshots do not keep it, so
// counterpartySums reads the lines naming counterparties (journal_lines_counterparty_idx). Raw SQL:
// aggregates and window functions over the journal.

/** The UZS lines (currency 'UZS'), one foreign currency's, or all (undefined). */
function currencyCondition(currency: string | undefined, alias = ''): string {
  if (currency === undefined) return 'true';
  return currency === 'UZS' ? `${alias}currency IS NULL` : `${alias}currency = :currency`;
}

export interface TurnoverRowData {
  account_code: string;
  subaccount_id: string | null;
  currency: string | null;
  debit: string;
  credit: string;
  /** Foreign debit and credit turnovers; null for UZS lines. */
  currency_debit: string | null;
  currency_credit: string | null;
}

/**
 * Debit and credit turnovers of `from`..`to` (inclusive) per account, subaccount and currency, from the lines'
 * day totals; without the year-end closing entries when asked (Form 2: they would bring every income and
 * expense to zero).
 */
export function turnoversBetween(
  tx: Db,
  scope: LedgerScope,
  range: { from: string; to: string; currency?: string; withoutYearEndClosing?: boolean },
): Promise<TurnoverRowData[]> {
  return selectRows<TurnoverRowData>(
    tx,
    `SELECT account_code, subaccount_id, currency, sum(debit)::text AS debit, sum(credit)::text AS credit,
            sum(currency_debit)::text AS currency_debit, sum(currency_credit)::text AS currency_credit
       FROM journal_day_totals
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND entry_date BETWEEN :from AND :to AND ${currencyCondition(range.currency)}
        ${range.withoutYearEndClosing ? 'AND NOT year_end' : ''}
      GROUP BY account_code, subaccount_id, currency`,
    { ...scope, from: range.from, to: range.to, currency: range.currency ?? null },
  );
}

export interface CounterpartySumsRow {
  account_code: string;
  subaccount_id: string | null;
  counterparty_id: string;
  /** The counterparty's name as it is now. */
  counterparty_name: string;
  currency: string | null;
  /** UZS totals of the lines before `from`. */
  opening_debit: string;
  opening_credit: string;
  /** UZS turnovers of `from`..`to`. */
  debit: string;
  credit: string;
  /** The foreign balance before `from` (debit positive) and the foreign turnovers of the range; null for UZS lines. */
  currency_opening: string | null;
  currency_debit: string | null;
  currency_credit: string | null;
}

/**
 * Per account, subaccount, counterparty and currency, the totals of the lines naming a counterparty: before
 * `from` (the opening balance) and in `from`..`to`. Every line through `to` is read, not a snapshot (the
 * snapshots have no counterparty), through journal_lines_counterparty_idx: the company's part of it, or one
 * counterparty's (and one account's) range with `counterpartyId` (and `accountCode`).
 */
export function counterpartySums(
  tx: Db,
  scope: LedgerScope,
  query: { from: string; to: string; currency?: string; counterpartyId?: string; accountCode?: string; subaccountId?: string },
): Promise<CounterpartySumsRow[]> {
  const conditions = [
    query.counterpartyId === undefined ? 'l.counterparty_id IS NOT NULL' : 'l.counterparty_id = :counterpartyId',
    query.accountCode === undefined ? 'true' : 'l.account_code = :accountCode',
    query.subaccountId === undefined ? 'true' : 'l.subaccount_id = :subaccountId',
    currencyCondition(query.currency, 'l.'),
  ].join(' AND ');
  return selectRows<CounterpartySumsRow>(
    tx,
    `SELECT s.account_code, s.subaccount_id, s.counterparty_id, c.name AS counterparty_name, s.currency,
            s.opening_debit::text AS opening_debit, s.opening_credit::text AS opening_credit, s.debit::text AS debit, s.credit::text AS credit,
            s.currency_opening::text AS currency_opening, s.currency_debit::text AS currency_debit, s.currency_credit::text AS currency_credit
       FROM (
         SELECT l.account_code, l.subaccount_id, l.counterparty_id, l.currency,
                coalesce(sum(l.debit) FILTER (WHERE l.entry_date < :from), 0) AS opening_debit,
                coalesce(sum(l.credit) FILTER (WHERE l.entry_date < :from), 0) AS opening_credit,
                coalesce(sum(l.debit) FILTER (WHERE l.entry_date >= :from), 0) AS debit,
                coalesce(sum(l.credit) FILTER (WHERE l.entry_date >= :from), 0) AS credit,
                sum(CASE WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END) FILTER (WHERE l.entry_date < :from) AS currency_opening,
                sum(CASE WHEN l.debit > 0 THEN l.currency_amount ELSE 0 END) FILTER (WHERE l.entry_date >= :from) AS currency_debit,
                sum(CASE WHEN l.credit > 0 THEN l.currency_amount ELSE 0 END) FILTER (WHERE l.entry_date >= :from) AS currency_credit
           FROM journal_lines l
          WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND ${conditions} AND l.entry_date <= :to
          GROUP BY l.account_code, l.subaccount_id, l.counterparty_id, l.currency
       ) s
       JOIN counterparties c ON c.tenant_id = :tenantId AND c.legal_entity_id = :legalEntityId AND c.id = s.counterparty_id`,
    {
      ...scope,
      from: query.from,
      to: query.to,
      currency: query.currency ?? null,
      counterpartyId: query.counterpartyId ?? null,
      accountCode: query.accountCode ?? null,
      subaccountId: query.subaccountId ?? null,
    },
  );
}

/** One line of an account statement, as a page and an export read it. */
export interface StatementLineData {
  entry_id: string;
  number: string;
  entry_date: string;
  description: string;
  line_no: number;
  memo: string | null;
  subaccount_id: string | null;
  debit: string;
  credit: string;
  /** The foreign amount, debit positive; null on a UZS line. */
  currency_amount: string | null;
  counter_accounts: string[] | null;
}

/** A page's line, with the range's running sums up to and including it (debit minus credit). */
export interface StatementLineRow extends StatementLineData {
  running: string;
  running_foreign: string | null;
}

export interface StatementQuery {
  accountCode: string;
  subaccountId?: string;
  /** Only the lines naming this counterparty. */
  counterpartyId?: string;
  from: string;
  to: string;
  currency?: string;
  limit: number;
  offset: number;
}

const statementWhere = (query: StatementQuery) =>
  `l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = :accountCode
   AND ${query.subaccountId === undefined ? 'true' : 'l.subaccount_id = :subaccountId'}
   AND ${query.counterpartyId === undefined ? 'true' : 'l.counterparty_id = :counterpartyId'}
   AND l.entry_date BETWEEN :from AND :to AND ${currencyCondition(query.currency, 'l.')}`;

/**
 * One page of the account's lines in journal order (date, entry number, line), each with the running sums of
 * the range up to it, so a page carries on from the lines before it; and the counter-accounts of its entry
 * (the accounts on the other side). The running sums and the page come from the account index alone (it
 * holds the order and the amounts, journal_lines_account_idx; with a counterparty, journal_lines_counterparty_idx);
 * only the page's 50 or so lines then read their memo, their entry's description and its other lines.
 */
export function statementPage(tx: Db, scope: LedgerScope, query: StatementQuery): Promise<StatementLineRow[]> {
  return selectRows<StatementLineRow>(
    tx,
    `WITH page AS (
       SELECT l.entry_id, l.entry_number, l.entry_date, l.line_no, l.subaccount_id, l.debit, l.credit,
              CASE WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END AS currency_amount,
              sum(l.debit - l.credit) OVER w AS running,
              sum(CASE WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END) OVER w AS running_foreign
         FROM journal_lines l
        WHERE ${statementWhere(query)}
       WINDOW w AS (ORDER BY l.entry_date, l.entry_number, l.line_no)
        ORDER BY l.entry_date, l.entry_number, l.line_no
        LIMIT :limit OFFSET :offset
     )
     SELECT page.entry_id, page.entry_number::text AS number, to_char(page.entry_date, 'YYYY-MM-DD') AS entry_date, e.description,
            page.line_no, line.memo, page.subaccount_id, page.debit::text AS debit, page.credit::text AS credit, page.running::text AS running,
            page.currency_amount::text AS currency_amount, page.running_foreign::text AS running_foreign,
            (SELECT array_agg(DISTINCT o.account_code ORDER BY o.account_code) FROM journal_lines o
              WHERE o.tenant_id = :tenantId AND o.entry_id = page.entry_id AND (o.debit > 0) <> (page.debit > 0)) AS counter_accounts
       FROM page
       JOIN journal_entries e ON e.tenant_id = :tenantId AND e.id = page.entry_id
       JOIN journal_lines line ON line.tenant_id = :tenantId AND line.entry_id = page.entry_id AND line.line_no = page.line_no
      ORDER BY page.entry_date, page.entry_number, page.line_no`,
    { ...scope, ...query, subaccountId: query.subaccountId ?? null, counterpartyId: query.counterpartyId ?? null, currency: query.currency ?? null },
  );
}

/** The range's turnovers of the account and how many lines it has. */
export async function statementTotals(
  tx: Db,
  scope: LedgerScope,
  query: Omit<StatementQuery, 'limit' | 'offset'>,
): Promise<{ debit: string; credit: string; foreign: string | null; lines: number }> {
  const [row] = await selectRows<{ debit: string; credit: string; foreign: string | null; lines: string }>(
    tx,
    `SELECT coalesce(sum(l.debit), 0)::text AS debit, coalesce(sum(l.credit), 0)::text AS credit,
            sum(CASE WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END)::text AS foreign, count(*) AS lines
       FROM journal_lines l WHERE ${statementWhere({ ...query, limit: 0, offset: 0 })}`,
    { ...scope, ...query, subaccountId: query.subaccountId ?? null, counterpartyId: query.counterpartyId ?? null, currency: query.currency ?? null },
  );
  return { debit: row!.debit, credit: row!.credit, foreign: row!.foreign, lines: Number(row!.lines) };
}
