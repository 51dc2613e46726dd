import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { findEntry, linesOf, listEntries, postingContextOf, type EntrySourceType, type LedgerScope, type LineRow } from '../../db/repositories/ledger/journal';
import { DuplicateRowError } from '../../db/repositories/errors';
import { subscribedStatement, type RecordedStart } from '../../db/repositories/webhooks/events';
import { AppError } from '../../core/shared/problems';
import { formatMinorUnits } from '../../core/ledger/money';
import { prepareEntry, prepareReversal, type PreparedEntry } from '../../core/ledger/journal';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { plannedEntryWrite, postingContextFor, postingProblemOf, writeEntry } from '../../services/ledger/posting';
import type { PostingGroups } from './posting-groups';
import { loadEntry, toJournalEntry } from '../../services/ledger/journal-entries';

type JournalEntryCreate = Schemas['JournalEntryCreate'];
type JournalEntry = Schemas['JournalEntry'];

/** What posted an entry, in words. */
const SOURCE_NAMES: Record<EntrySourceType, string> = { INVOICE: 'an invoice', PAYMENT: 'a payment', BANK_LINE: 'a bank line', FIXED_ASSET: 'a fixed asset' };

/** A posted entry's audit details: its date, line count and total (alone or in a group, the same text). */
const auditDetails = (entry: PreparedEntry) => `dated ${entry.entryDate}, ${entry.lines.length} lines, total ${formatMinorUnits(entry.total)}`;

/** Posting, reversing and reading journal entries. */
export function createJournalEntries({
  db,
  companies,
  webhookEvents,
  postingGroups,
}: {
  db: Sequelize;
  companies: CompanyScopes;
  webhookEvents: WebhookEvents;
  /** The company's group commits, which journal postings go through. */
  postingGroups: PostingGroups;
}) {
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
            details: auditDetails(requested),
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

  /**
   * Posts a journal entry through its company's group commit (api/ledger/posting-groups.ts): the postings
   * one company receives at once share a transaction instead of queueing for its ledger row one by one. The
   * group reads the posting's checks (company, requestId, chart, rates) and the webhook subscription in its
   * opening; a requestId used before, or a check that refuses, is answered by the posting alone.
   */
  async function postJournalEntry(principal: Principal, legalEntityId: string, input: JournalEntryCreate, ctx: RequestContext) {
    const prepared = prepareEntry(input);
    const scope = scopeOf(principal, legalEntityId);
    const eventType = 'journal-entry.posted' as const;
    return postingGroups.post<{ entry: JournalEntry; created: boolean }>({
      scope,
      key: `journal-entry:${input.requestId}`,
      opening: [postingContextFor(scope, input.requestId, prepared), subscribedStatement(scope, eventType)],
      plan: ([context, [subscription]]) => {
        const id = randomUUID();
        const write = plannedEntryWrite(principal, scope, ctx, postingContextOf(context!), {
          id,
          requestId: input.requestId,
          prepared,
          source: null,
          audit: { action: 'ledger.entry.posted', subjectType: 'JOURNAL_ENTRY', subjectId: id, details: auditDetails(prepared) },
          event: { type: eventType, subscribed: (subscription as { subscribed: boolean } | undefined)?.subscribed === true, options: webhookEvents.options },
        });
        if (!write) return null;
        return {
          statements: write.statements,
          late: write.late,
          answer: (results) => {
            const { entry, starts } = write.answer(results);
            return { result: { entry, created: true }, starts };
          },
        };
      },
      alone: () => commitEntry(principal, scope, input.requestId, prepared, ctx, async () => undefined, 'ledger.entry.posted', eventType),
    });
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
      if (current!.kind === 'DEPRECIATION') throw new AppError('entry-not-reversible', 'A depreciation entry is not reversed: its month is closed with it');
      if (current!.kind === 'DISPOSAL') throw new AppError('entry-not-reversible', 'A disposal result entry is not reversed: its period is closed with it');
      if (current!.source_type) {
        throw new AppError('entry-not-reversible', `The entry was posted by ${SOURCE_NAMES[current!.source_type]} (${current!.source_id}): cancel or undo it there instead, which reverses it`, {
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
