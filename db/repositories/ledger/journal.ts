import { Op } from 'sequelize';
import { JournalLine } from '../../models';
import { selectRows, transactionOf, type Db, type Statement } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { LedgerLine } from '../../../core/ledger/journal';

// Journal entries and lines. Serves postJournalEntry (postJournalEntryStatement), reverseJournalEntry,
// listJournalEntries, getJournalEntry, and the account look-ups of getTrialBalance and closePeriod.
// Entries are append-only: there is no update or delete here, and the
// database rejects both. Rows come back as plain objects with amounts as NUMERIC strings.
// Raw SQL for the posting (one statement under the company's ledger row: counter, entry and lines), its
// checks (one statement over the company, the journal and the chart), the entries (read joined with their
// reversals) and the accounts (the global chart merged with the company's rows); an entry's lines are one
// table, read through the model.

export type LedgerScope = CompanyScope;

export interface EntryRow {
  id: string;
  number: string;
  entry_date: string;
  description: string;
  reference: string | null;
  request_hash: string;
  reversal_of: string | null;
  reversed_by: string | null;
  kind: 'POSTING' | 'REVALUATION' | 'YEAR_END_CLOSING' | 'DEPRECIATION' | 'DISPOSAL';
  source_type: EntrySourceType | null;
  source_id: string | null;
  total_debit: string;
  total_credit: string;
  posted_at: Date;
  posted_by_membership_id: string | null;
  correlation_id: string;
}

export interface LineRow {
  entry_id: string;
  line_no: number;
  account_code: string;
  subaccount_id: string | null;
  /** Absent from reads that do not select it (read as null). */
  counterparty_id?: string | null;
  debit: string;
  credit: string;
  memo: string | null;
  currency: string | null;
  currency_amount: string | null;
  rate: string | null;
  rate_source: 'CBU' | 'BANK' | 'MANUAL' | null;
  rate_date: string | null;
}

/** The kind of document that posted an entry. */
export type EntrySourceType = 'INVOICE' | 'PAYMENT' | 'BANK_LINE' | 'FIXED_ASSET';

export interface NewEntry {
  id: string;
  entryDate: string;
  description: string;
  reference: string | null;
  requestId: string;
  requestHash: string;
  reversalOf: string | null;
  total: string;
  postedByMembershipId: string | null;
  correlationId: string;
  /** A system entry (REVALUATION, YEAR_END_CLOSING) marks every line as a system line (the database checks both at commit). */
  kind?: 'POSTING' | 'REVALUATION' | 'YEAR_END_CLOSING' | 'DEPRECIATION' | 'DISPOSAL';
  /** The document that posts the entry (its posting, its cancellation), if any. */
  source?: { type: EntrySourceType; id: string } | null;
}

/**
 * Takes the company's next entry number and writes the entry and its lines, in one statement, unless the
 * entry is dated at or before the cut-off (a running close's own system entries excepted, on its date; else nothing is written and `postedAt` is null; the caller rolls
 * back, which returns the number; read the row with postedEntryOf). Every posting of a company passes through its ledger row and holds it
 * until commit, so numbers are gapless and a period close that moves the cut-off waits for postings in
 * flight, after which every later one sees it. One round trip while the row is held keeps that window short.
 */
/** A line to write; a system line (a revaluation's, a closing's) may leave out the counterparty (none). */
export type PostedLine = Omit<LedgerLine, 'counterpartyId'> & { counterpartyId?: string | null };

/**
 * Posts an entry after the cut-off; a running close's own system entries on its date, and its DEPRECIATION
 * entries on any month-end of the period it closes (after the last completed close).
 */
export function postJournalEntryStatement(scope: LedgerScope, entry: NewEntry, lines: PostedLine[]): Statement {
  return {
    sql: `WITH counter AS (
       INSERT INTO ledger_states AS s (tenant_id, legal_entity_id, next_entry_number) VALUES (:tenantId, :legalEntityId, 2)
       ON CONFLICT (tenant_id, legal_entity_id) DO UPDATE SET next_entry_number = s.next_entry_number + 1
       RETURNING s.next_entry_number - 1 AS number, s.locked_through, s.last_closed_date
     ), entry AS (
       INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, reference, request_id, request_hash,
                                    reversal_of, total_debit, total_credit, line_count, posted_by_membership_id, correlation_id, kind, source_type, source_id)
       SELECT :tenantId, :id, :legalEntityId, counter.number, :entryDate, :description, :reference, :requestId, :requestHash,
              :reversalOf, :total, :total, :lineCount, :postedByMembershipId, :correlationId, :kind, :sourceType, CAST(:sourceId AS uuid)
         FROM counter WHERE counter.locked_through IS NULL OR counter.locked_through < CAST(:entryDate AS date)
               OR (:kind <> 'POSTING' AND counter.locked_through = CAST(:entryDate AS date)
                   AND (counter.last_closed_date IS NULL OR counter.last_closed_date < counter.locked_through))
               OR (:kind = 'DEPRECIATION' AND counter.locked_through >= CAST(:entryDate AS date)
                   AND (counter.last_closed_date IS NULL OR (counter.last_closed_date < counter.locked_through AND counter.last_closed_date < CAST(:entryDate AS date))))
       RETURNING id, number, posted_at
     ), lines AS (
       INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, subaccount_id, counterparty_id,
                                  debit, credit, memo, currency, currency_amount, rate, rate_source, rate_date, system_line)
       SELECT :tenantId, entry.id, entry.number, l.line_no, :legalEntityId, :entryDate, l.account_code, l.subaccount_id, l.counterparty_id,
              l.debit, l.credit, l.memo, l.currency, l.currency_amount, l.rate, l.rate_source, l.rate_date, :systemLine
         FROM entry, unnest(ARRAY[:lineNos]::int[], ARRAY[:codes]::text[], ARRAY[:subaccounts]::uuid[], ARRAY[:counterparties]::uuid[],
                            ARRAY[:debits]::numeric[], ARRAY[:credits]::numeric[], ARRAY[:memos]::text[],
                            ARRAY[:currencies]::text[], ARRAY[:currencyAmounts]::numeric[], ARRAY[:rates]::numeric[],
                            ARRAY[:rateSources]::text[], ARRAY[:rateDates]::date[])
              AS l(line_no, account_code, subaccount_id, counterparty_id, debit, credit, memo, currency, currency_amount, rate, rate_source, rate_date)
     )
     SELECT counter.number, to_char(counter.locked_through, 'YYYY-MM-DD') AS locked_through, entry.posted_at
       FROM counter LEFT JOIN entry ON true`,
    replacements: {
      ...scope,
      ...entry,
      kind: entry.kind ?? 'POSTING',
      sourceType: entry.source?.type ?? null,
      sourceId: entry.source?.id ?? null,
      systemLine: (entry.kind ?? 'POSTING') !== 'POSTING',
      lineCount: lines.length,
      lineNos: lines.map((l) => l.lineNo),
      codes: lines.map((l) => l.accountCode),
      subaccounts: lines.map((l) => l.subaccountId),
      counterparties: lines.map((l) => l.counterpartyId ?? null),
      debits: lines.map((l) => l.debit),
      credits: lines.map((l) => l.credit),
      memos: lines.map((l) => l.memo),
      currencies: lines.map((l) => l.currency),
      currencyAmounts: lines.map((l) => l.currencyAmount),
      rates: lines.map((l) => l.rate),
      rateSources: lines.map((l) => l.rateSource),
      rateDates: lines.map((l) => l.rateDate),
    },
  };
}

/** The outcome of postJournalEntryStatement, from its one row. */
export function postedEntryOf(row: Record<string, unknown>): { number: number; lockedThrough: string | null; postedAt: Date | null } {
  const r = row as { number: string; locked_through: string | null; posted_at: Date | null };
  return { number: Number(r.number), lockedThrough: r.locked_through, postedAt: r.posted_at };
}

const ENTRY_COLUMNS = `e.id, e.number, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date, e.description, e.reference, e.request_hash,
  e.reversal_of, r.id AS reversed_by, e.kind, e.source_type, e.source_id, e.total_debit, e.total_credit, e.posted_at, e.posted_by_membership_id, e.correlation_id`;
const ENTRY_FROM = `journal_entries e LEFT JOIN journal_entries r ON r.tenant_id = e.tenant_id AND r.reversal_of = e.id`;

export async function findEntry(tx: Db, scope: LedgerScope, by: { id: string } | { requestId: string }): Promise<EntryRow | null> {
  const where = 'id' in by ? 'e.id = :id' : 'e.request_id = :requestId';
  const [row] = await selectRows<EntryRow>(
    tx,
    `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE e.tenant_id = :tenantId AND e.legal_entity_id = :legalEntityId AND ${where}`,
    { ...scope, ...by },
  );
  return row ?? null;
}

export async function linesOf(tx: Db, scope: LedgerScope, entryIds: string[]): Promise<LineRow[]> {
  if (entryIds.length === 0) return [];
  const lines = await JournalLine.findAll({
    attributes: ['entryId', 'lineNo', 'accountCode', 'subaccountId', 'counterpartyId', 'debit', 'credit', 'memo', 'currency', 'currencyAmount', 'rate', 'rateSource', 'rateDate'],
    where: { tenantId: scope.tenantId, entryId: { [Op.in]: entryIds } },
    order: [['entryId', 'ASC'], ['lineNo', 'ASC']],
    transaction: transactionOf(tx),
  });
  return lines.map((l) => ({
    entry_id: l.entryId,
    line_no: l.lineNo,
    account_code: l.accountCode,
    subaccount_id: l.subaccountId,
    counterparty_id: l.counterpartyId,
    debit: l.debit,
    credit: l.credit,
    memo: l.memo,
    currency: l.currency,
    currency_amount: l.currencyAmount,
    rate: l.rate,
    rate_source: l.rateSource,
    rate_date: l.rateDate,
  }));
}

export interface EntryFilter {
  dateFrom?: string;
  dateTo?: string;
  accountCode?: string;
  /** Entries with a line in this currency; UZS: with a UZS line. */
  currency?: string;
  page: number;
  size: number;
}

/** The SQL conditions on entries `e` of the filter's (its replacements: the scope's and the filter's own). */
export function entryConditions(filter: Omit<EntryFilter, 'page' | 'size'>): string {
  const conditions = ['e.tenant_id = :tenantId', 'e.legal_entity_id = :legalEntityId'];
  if (filter.dateFrom) conditions.push('e.entry_date >= :dateFrom');
  if (filter.dateTo) conditions.push('e.entry_date <= :dateTo');
  if (filter.accountCode) {
    conditions.push('EXISTS (SELECT 1 FROM journal_lines l WHERE l.tenant_id = e.tenant_id AND l.entry_id = e.id AND l.account_code = :accountCode)');
  }
  if (filter.currency) {
    conditions.push(
      filter.currency === 'UZS'
        ? 'EXISTS (SELECT 1 FROM journal_lines l WHERE l.tenant_id = e.tenant_id AND l.entry_id = e.id AND l.currency IS NULL)'
        : 'EXISTS (SELECT 1 FROM journal_lines l WHERE l.tenant_id = e.tenant_id AND l.entry_id = e.id AND l.currency = :currency)',
    );
  }
  return conditions.join(' AND ');
}

/** Entries in journal order (by number), optionally within dates or touching one account. */
export async function listEntries(tx: Db, scope: LedgerScope, filter: EntryFilter): Promise<{ rows: EntryRow[]; total: number }> {
  const where = entryConditions(filter);
  const replacements = { ...scope, ...filter, limit: filter.size, offset: filter.page * filter.size };
  const [count] = await selectRows<{ n: string }>(tx, `SELECT count(*) AS n FROM journal_entries e WHERE ${where}`, replacements);
  const rows = await selectRows<EntryRow>(
    tx,
    `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE ${where} ORDER BY e.number LIMIT :limit OFFSET :offset`,
    replacements,
  );
  return { rows, total: Number(count!.n) };
}

export interface AccountInfo {
  code: string;
  name: string;
  type: string;
}

/** Names and types of the given codes as the company sees them (its name overrides, its custom accounts). */
export async function accountInfo(tx: Db, scope: LedgerScope, codes: string[]): Promise<Map<string, AccountInfo>> {
  if (codes.length === 0) return new Map();
  const rows = await selectRows<AccountInfo>(
    tx,
    `SELECT coalesce(g.code, c.code) AS code, coalesce(c.name, g.name) AS name, coalesce(g.type, c.type) AS type
       FROM global_accounts g
       FULL JOIN (SELECT code, name, type FROM company_accounts WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId) c
         ON c.code = g.code
      WHERE coalesce(g.code, c.code) = ANY(ARRAY[:codes]::text[])`,
    { ...scope, codes },
  );
  return new Map(rows.map((r) => [r.code, r]));
}

export interface PostingContext {
  company: { archived: boolean } | null;
  replayed: boolean;
  knownCodes: Set<string>;
  /** Header accounts among the codes (group accounts of the global chart with accounts under them), each with those accounts. */
  headerDetails: Map<string, string[]>;
  subaccountParents: Map<string, string>;
  /** The company's counterparties among those named, each with whether it is archived. */
  counterparties: Map<string, { archived: boolean }>;
  /** The company's accounting setting (false before it is saved). */
  requireCounterpartyOnSettlements: boolean;
  /** Per currency asked for, the latest CBU rate on or before the entry date. */
  rates: Map<string, { rate: string; rateDate: string }>;
}

/**
 * Everything a posting checks before it writes, in one round trip: the company, whether the requestId was
 * used, which of the codes the company's chart has, which of them are header accounts (and their detail
 * accounts), and the parents of the named subaccounts. The company row is held FOR KEY SHARE until commit:
 * an archive (FOR UPDATE) waits for the posting, and a posting that waited for an archive sees it; other
 * company updates (onboarding) do not block postings.
 */
type PostingContextRow = {
  archived: boolean | null;
  replayed: boolean;
  codes: string[] | null;
  headers: Record<string, string[]> | null;
  subaccounts: Array<{ id: string; parent: string }> | null;
  counterparties: Array<{ id: string; archived: boolean }> | null;
  require_counterparty: boolean;
  rates: Record<string, { rate: string; rateDate: string }> | null;
};

/**
 * Where a posting context's inputs come from, as SQL expressions: the lines' account codes (text[]), their
 * subaccounts and counterparties (uuid[]), the currencies to rate (text[]) and the entry's date.
 */
interface PostingContextSources {
  codes: string;
  subaccountIds: string;
  counterpartyIds: string;
  currencies: string;
  entryDate: string;
}

/**
 * The posting context's one row (the company, the requestId, the chart, the rates) from `sources`; :tenantId,
 * :legalEntityId and :requestId bound. The invoice's posting reads the same row through its own function
 * (app_invoice_posting_context, migration 2026.11.29T06.30.00.invoice-posting-functions): a change here changes it too.
 */
function postingContextSql(sources: PostingContextSources): string {
  return `SELECT (SELECT archived_at IS NOT NULL FROM legal_entities WHERE tenant_id = :tenantId AND id = :legalEntityId FOR KEY SHARE) AS archived,
            EXISTS (SELECT 1 FROM journal_entries WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND request_id = :requestId) AS replayed,
            (SELECT array_agg(code) FROM (
               SELECT code FROM global_accounts WHERE code = ANY(${sources.codes})
               UNION
               SELECT code FROM company_accounts
                WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND custom AND code = ANY(${sources.codes})) known) AS codes,
            (SELECT json_object_agg(parent_code, details) FROM (
               SELECT parent_code, array_agg(code ORDER BY code) AS details FROM global_accounts
                WHERE parent_code = ANY(${sources.codes}) GROUP BY parent_code) header) AS headers,
            (SELECT json_agg(json_build_object('id', id, 'parent', parent_code)) FROM company_subaccounts
              WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = ANY(${sources.subaccountIds})) AS subaccounts,
            (SELECT json_agg(json_build_object('id', id, 'archived', archived)) FROM counterparties
              WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = ANY(${sources.counterpartyIds})) AS counterparties,
            coalesce((SELECT require_counterparty_on_settlements FROM company_accounting_settings
                       WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId), false) AS require_counterparty,
            (SELECT json_object_agg(currency_code, json_build_object('rate', rate::text, 'rateDate', to_char(effective_date, 'YYYY-MM-DD'))) FROM (
               SELECT DISTINCT ON (currency_code) currency_code, rate, effective_date FROM exchange_rates
                WHERE source = 'CBU' AND currency_code = ANY(${sources.currencies}) AND effective_date <= ${sources.entryDate}
                ORDER BY currency_code, effective_date DESC) stored) AS rates`;
}

/** The company, the requestId and the chart of a posting as one statement (read it with postingContextOf). */
export function postingContextStatement(
  scope: LedgerScope,
  input: { requestId: string; codes: string[]; subaccountIds: string[]; counterpartyIds?: string[]; currencies: string[]; entryDate: string },
): Statement {
  return {
    sql: postingContextSql({
      codes: 'ARRAY[:codes]::text[]',
      subaccountIds: 'CAST(:subaccountIds AS uuid[])',
      counterpartyIds: 'CAST(:counterpartyIds AS uuid[])',
      currencies: 'CAST(:currencies AS text[])',
      entryDate: ':entryDate',
    }),
    replacements: { ...scope, ...input, subaccountIds: `{${input.subaccountIds.join(',')}}`, counterpartyIds: `{${(input.counterpartyIds ?? []).join(',')}}`, currencies: `{${input.currencies.join(',')}}` },
  };
}

export function postingContextOf(rows: Record<string, unknown>[]): PostingContext {
  const row = rows[0] as PostingContextRow;
  return {
    company: row.archived === null ? null : { archived: row.archived },
    replayed: row.replayed,
    knownCodes: new Set(row.codes ?? []),
    headerDetails: new Map(Object.entries(row.headers ?? {})),
    subaccountParents: new Map((row.subaccounts ?? []).map((s) => [s.id, s.parent])),
    counterparties: new Map((row.counterparties ?? []).map((c) => [c.id, { archived: c.archived }])),
    requireCounterpartyOnSettlements: row.require_counterparty,
    rates: new Map(Object.entries(row.rates ?? {})),
  };
}
