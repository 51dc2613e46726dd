import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { findEntry, linesOf, listEntries, postingContextOf, type EntryRow, type LedgerScope, type LineRow } from '../../db/repositories/ledger/journal';
import { DuplicateRowError } from '../../db/repositories/errors';
import { subscribedStatement, type RecordedStart } from '../../db/repositories/webhooks/events';
import { AppError } from '../../core/shared/problems';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { prepareEntry, prepareReversal, type PreparedEntry } from '../../core/ledger/journal';
import { formatForeignAmount } from '../../core/ledger/currency';
import { canonical } from '../../core/rates/rates';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { postingContextFor, postingProblemOf, writeEntry } from './posting';

type JournalEntryCreate = Schemas['JournalEntryCreate'];
type JournalEntry = Schemas['JournalEntry'];

/** A NUMERIC(20, 2) as the API writes it; PostgreSQL's text of one is that already (an export reads millions). */
const CANONICAL_MONEY = /^-?(?:0|[1-9][0-9]*)\.[0-9]{2}$/;
const money = (numeric: string) => (CANONICAL_MONEY.test(numeric) ? numeric : formatMinorUnits(numericToMinorUnits(numeric)));

/** A stored line as the API shows it: UZS amounts with two decimals, a foreign amount in its currency's decimals. */
export function toJournalLine(l: LineRow): JournalEntry['lines'][number] {
  return {
    lineNo: l.line_no,
    accountCode: l.account_code,
    subaccountId: l.subaccount_id,
    counterpartyId: l.counterparty_id ?? null,
    debit: money(l.debit),
    credit: money(l.credit),
    memo: l.memo,
    currency: l.currency,
    currencyAmount: l.currency && l.currency_amount !== null ? formatForeignAmount(l.currency_amount, l.currency) : null,
    rate: l.rate === null ? null : canonical(l.rate),
    rateSource: l.rate_source,
    rateDate: l.rate_date,
  };
}

function toJournalEntry(row: EntryRow, lines: LineRow[]): JournalEntry {
  return {
    id: row.id,
    number: Number(row.number),
    entryDate: row.entry_date,
    description: row.description,
    reference: row.reference,
    kind: row.kind,
    source: row.source_type && row.source_id ? { type: row.source_type, id: row.source_id } : null,
    lines: lines.map(toJournalLine),
    totalDebit: money(row.total_debit),
    totalCredit: money(row.total_credit),
    reversalOf: row.reversal_of,
    reversedBy: row.reversed_by,
    postedAt: row.posted_at.toISOString(),
    postedByMembershipId: row.posted_by_membership_id,
    correlationId: row.correlation_id,
  };
}

/** One entry with its lines, by id or by the requestId that posted it. */
export async function loadEntry(tx: Tx, scope: LedgerScope, by: { id: string } | { requestId: string }): Promise<JournalEntry | null> {
  const row = await findEntry(tx, scope, by);
  return row ? toJournalEntry(row, await linesOf(tx, scope, [row.id])) : null;
}

/** Posting, reversing and reading journal entries. */
export function createJournalEntries({ db, companies, webhookEvents }: { db: Sequelize; companies: CompanyScopes; webhookEvents: WebhookEvents }) {
  const scopeOf = (principal: Principal, legalEntityId: string): LedgerScope => ({ tenantId: principal.tenantId, legalEntityId });

  /** The entry a requestId already produced, when its content matches; 409 when it does not. */
  async function replayOf(tx: Tx, scope: LedgerScope, requestId: string, hash: string): Promise<JournalEntry | null> {
    const row = await findEntry(tx, scope, { requestId });
    if (!row) return null;
    if (row.request_hash !== hash) throw new AppError('request-id-reused', 'This requestId was used for a different entry');
    return toJournalEntry(row, await linesOf(tx, scope, [row.id]));
  }

  /**
   * Posts a prepared entry in one transaction with its audit event and its webhook event; idempotent per
   * requestId. The posting's checks travel with the transaction's opening (one round trip), and so does
   * whether anyone subscribed to the event: the event statement is left out when nobody did, which keeps it
   * out of the company ledger row's hold too. The event's deliveries start after the commit.
   */
  async function commitEntry(
    principal: Principal,
    scope: LedgerScope,
    requestId: string,
    requested: PreparedEntry,
    ctx: RequestContext,
    check: (tx: Tx) => Promise<void>,
    action: AuditAction,
    eventType: 'journal-entry.posted' | 'journal-entry.reversed',
  ): Promise<{ entry: JournalEntry; created: boolean }> {
    let committed: { entry: JournalEntry; created: boolean; starts: RecordedStart[] };
    try {
      committed = await withTenant(db, scope.tenantId, async (tx, [context, [subscription]]) => {
        const facts = postingContextOf(context!);
        const id = randomUUID();
        const written = await writeEntry(tx, principal, scope, ctx, facts, {
          id,
          requestId,
          prepared: requested,
          source: null,
          audit: {
            action,
            subjectType: 'JOURNAL_ENTRY',
            subjectId: id,
            details: `dated ${requested.entryDate}, ${requested.lines.length} lines, total ${formatMinorUnits(requested.total)}`,
          },
          event: { type: eventType, subscribed: (subscription as { subscribed: boolean } | undefined)?.subscribed === true, options: webhookEvents.options },
          check,
        });
        if (written.replayed) return { entry: (await replayOf(tx, scope, requestId, requested.hash))!, created: false, starts: [] };
        return { entry: written.entry, created: true, starts: written.starts };
      }, [postingContextFor(scope, requestId, requested), subscribedStatement(scope, eventType)]);
    } catch (err) {
      if (err instanceof DuplicateRowError) {
        // A concurrent request won: the same requestId (answer with its entry) or the same reversal target.
        const replay = await withTenant(db, scope.tenantId, (tx) => replayOf(tx, scope, requestId, requested.hash));
        if (replay) return { entry: replay, created: false };
        if (requested.reversalOf) throw new AppError('entry-already-reversed', 'The entry was reversed by another request');
      }
      throw postingProblemOf(err) ?? err;
    }
    await webhookEvents.dispatch(committed.starts);
    return { entry: committed.entry, created: committed.created };
  }

  async function postJournalEntry(principal: Principal, legalEntityId: string, input: JournalEntryCreate, ctx: RequestContext) {
    const prepared = prepareEntry(input);
    return commitEntry(principal, scopeOf(principal, legalEntityId), input.requestId, prepared, ctx, async () => undefined, 'ledger.entry.posted', 'journal-entry.posted');
  }

  async function reverseJournalEntry(principal: Principal, legalEntityId: string, entryId: string, input: Schemas['ReversalCreate'], ctx: RequestContext) {
    const scope = scopeOf(principal, legalEntityId);
    const original = await companies.read(principal, legalEntityId, (tx) => loadEntry(tx, scope, { id: entryId }));
    if (!original) throw new AppError('not-found', 'No journal entry with this id in this company');
    const prepared = prepareReversal(original, input);
    const check = async (tx: Tx) => {
      const current = await findEntry(tx, scope, { id: original.id });
      if (current!.reversal_of) throw new AppError('entry-not-reversible', 'A reversal is never itself reversed');
      if (current!.kind === 'REVALUATION') {
        throw new AppError('entry-not-reversible', 'A revaluation entry is not reversed: the next revaluation brings the balances to its rates');
      }
      if (current!.kind === 'YEAR_END_CLOSING') throw new AppError('entry-not-reversible', 'A year-end closing entry is not reversed: its year is closed');
      if (current!.source_type) {
        throw new AppError('entry-not-reversible', `The entry was posted by ${current!.source_type === 'INVOICE' ? 'an invoice' : 'a payment'} (${current!.source_id}): cancel the document instead, which reverses it`, {
          source: { type: current!.source_type, id: current!.source_id },
        });
      }
      if (current!.reversed_by) throw new AppError('entry-already-reversed', `The entry is already reversed by ${current!.reversed_by}`, { reversedBy: current!.reversed_by });
      if (input.entryDate < original.entryDate) {
        throw new AppError('validation', 'A reversal cannot be dated before the entry it reverses', {
          errors: [{ path: '/body/entryDate', message: `must be on or after ${original.entryDate}` }],
        });
      }
    };
    return commitEntry(principal, scope, input.requestId, prepared, ctx, check, 'ledger.entry.reversed', 'journal-entry.reversed');
  }

  async function getJournalEntry(principal: Principal, legalEntityId: string, entryId: string): Promise<JournalEntry> {
    const entry = await companies.read(principal, legalEntityId, (tx, scope) => loadEntry(tx, scope, { id: entryId }));
    if (!entry) throw new AppError('not-found', 'No journal entry with this id in this company');
    return entry;
  }

  async function listJournalEntries(
    principal: Principal,
    legalEntityId: string,
    filter: PageQuery & { dateFrom?: string; dateTo?: string; accountCode?: string; currency?: string },
  ): Promise<Schemas['JournalEntryPage']> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const { rows, total } = await listEntries(tx, scope, filter);
      const lines = await linesOf(tx, scope, rows.map((r) => r.id));
      const byEntry = new Map<string, LineRow[]>();
      for (const line of lines) byEntry.set(line.entry_id, [...(byEntry.get(line.entry_id) ?? []), line]);
      return pageOf(rows.map((r) => toJournalEntry(r, byEntry.get(r.id) ?? [])), filter, total);
    });
  }

  return { postJournalEntry, reverseJournalEntry, getJournalEntry, listJournalEntries };
}
