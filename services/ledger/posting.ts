import { selectBatch, selectResults, type LateText, type Statement, type Tx } from '../../db/connection';
import { postJournalEntryStatement, postedEntryOf, postingContextOf, postingContextStatement, type EntrySourceType, type LedgerScope, type PostingContext } from '../../db/repositories/ledger/journal';
import { LedgerRuleError } from '../../db/repositories/errors';
import { cbuRatesOn } from '../../db/repositories/rates/rates';
import { journalEntryEventStatement, recordedStartsOf, type RecordedStart, type RecordOptions } from '../../db/repositories/webhooks/events';
import { AppError } from '../../core/shared/problems';
import { formatMinorUnits } from '../../core/ledger/money';
import { FUNCTIONAL_CURRENCY } from '../../core/ledger/currency';
import { applyStoredRates, checkPosting, currenciesToRate, type PreparedEntry } from '../../core/ledger/journal';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { components } from '../../contracts/openapi';
import { callerEventStatement, type Actor, type Origin } from '../audit/caller-events';

// The ledger's one posting path: every entry a person causes (a journal entry, its reversal, an invoice's or
// a payment's posting and cancellation, a bank line's match, whether a request or a matching rule confirms
// it) is written here, inside the caller's transaction, with its audit event and (for a journal entry) its
// webhook event in the same round trip. Documents call it from the transaction that changes the document,
// so the document and its entry commit together or not at all.

type JournalEntry = components['schemas']['JournalEntry'];

/**
 * The company, the requestId and the chart of an entry, checked in one round trip before anything is
 * written (read it with postingContextOf).
 */
export const postingContextFor = (scope: LedgerScope, requestId: string, prepared: PreparedEntry): Statement =>
  postingContextStatement(scope, {
    requestId,
    codes: [...new Set(prepared.lines.map((l) => l.accountCode))],
    subaccountIds: [...new Set(prepared.lines.flatMap((l) => (l.subaccountId ? [l.subaccountId] : [])))],
    counterpartyIds: [...new Set(prepared.lines.flatMap((l) => (l.counterpartyId ? [l.counterpartyId] : [])))],
    currencies: currenciesToRate(prepared.lines),
    entryDate: prepared.entryDate,
  });

/** Reads the posting context of an entry inside `tx` (one round trip). */
export async function readPostingContext(tx: Tx, scope: LedgerScope, requestId: string, prepared: PreparedEntry): Promise<PostingContext> {
  return postingContextOf(await selectBatch<Record<string, unknown>>(tx, [postingContextFor(scope, requestId, prepared)]));
}

export interface EntryToWrite {
  /** The entry's id, chosen by the caller (its audit event may name it). */
  id: string;
  requestId: string;
  prepared: PreparedEntry;
  source: { type: EntrySourceType; id: string } | null;
  audit: { action: AuditAction; subjectType: string; subjectId: string; details: string };
  /** The journal's own webhook event, recorded in the posting's round trip when someone subscribed. */
  event: { type: 'journal-entry.posted' | 'journal-entry.reversed'; subscribed: boolean; options: RecordOptions } | null;
  /** The caller's own checks, after the ledger's (the company is there, the request is new) and before the write. */
  check?: (tx: Tx) => Promise<void>;
  /**
   * The caller's statements sent after the posting's in its round trip (its document's changes and reads).
   * They run whether or not the cut-off refused the entry: a refusal throws, and the transaction rolls back.
   */
  after?: Statement[];
  /** The caller's statements sent first in that round trip (e.g. one taking the document's number). */
  before?: Statement[];
  /** Texts of the entry, the audit event and the caller's statements that the `before` statements set (LateText). */
  late?: LateText[];
}

export type Written = { replayed: true } | { replayed: false; entry: JournalEntry; starts: RecordedStart[]; after: Record<string, unknown>[][] };

/**
 * Writes the entry in `tx` after the ledger's checks against `context` (read at the transaction's start):
 * the company, the accounts, the counterparties, the stored CBU rates. `replayed` when the requestId was
 * used already (the caller answers what it wrote). 409 period-closed when the cut-off refuses the date.
 */
export async function writeEntry(tx: Tx, actor: Actor, scope: LedgerScope, origin: Origin, context: PostingContext, entry: EntryToWrite): Promise<Written> {
  const requested = entry.prepared;
  if (checkPosting(context, requested.lines, requested.reversalOf !== null).replayed) return { replayed: true };
  // CBU lines take the stored rate of the entry date, read with the checks.
  const prepared = applyStoredRates(requested, context.rates);
  if (entry.check) await entry.check(tx);
  const write = entryWrite(actor, scope, origin, prepared, entry);
  return write.answer(await selectResults(tx, write.statements, { late: write.late }));
}

/**
 * writeEntry's checks and statements without its round trip, for a group commit that sends several entries'
 * statements in one: null when the requestId was used already (the caller answers its replay). Throws the
 * checks' refusals. An entry with its own asynchronous `check` is written alone (writeEntry).
 */
export function plannedEntryWrite(actor: Actor, scope: LedgerScope, origin: Origin, context: PostingContext, entry: EntryToWrite): EntryWrite | null {
  if (entry.check) throw new TypeError('an entry with an asynchronous check is written alone');
  if (checkPosting(context, entry.prepared.lines, entry.prepared.reversalOf !== null).replayed) return null;
  return entryWrite(actor, scope, origin, applyStoredRates(entry.prepared, context.rates), entry);
}

/** An entry's round trip (writeEntry's, or one of several in a group commit's) and how its results answer. */
export interface EntryWrite {
  statements: Statement[];
  /** The caller's late texts (EntryToWrite.late), for the batch that sends the statements. */
  late: LateText[];
  /** The entry written, from its statements' results; 409 period-closed when the cut-off refused it. */
  answer(results: Record<string, unknown>[][]): Written & { replayed: false };
}

/**
 * The statements that write an entry already checked (checkPosting, the caller's check), `prepared` with the
 * stored rates applied (applyStoredRates): the caller's `before`, the audit event, the posting, its webhook
 * event, the caller's `after`. The audit event comes first: the company's ledger row is held only from the
 * posting statement to commit. The webhook event reads the entry the posting wrote (none when the cut-off
 * refused it).
 */
function entryWrite(actor: Actor, scope: LedgerScope, origin: Origin, prepared: PreparedEntry, entry: EntryToWrite): EntryWrite {
  const event = entry.event?.subscribed ? [journalEntryEventStatement(scope, { type: entry.event.type, entryId: entry.id }, entry.event.options)] : [];
  const before = entry.before ?? [];
  const statements = [
    ...before,
    callerEventStatement(actor, origin, entry.audit),
    postJournalEntryStatement(
      scope,
      {
        id: entry.id,
        entryDate: prepared.entryDate,
        description: prepared.description,
        reference: prepared.reference,
        requestId: entry.requestId,
        requestHash: prepared.hash,
        reversalOf: prepared.reversalOf,
        total: formatMinorUnits(prepared.total),
        postedByMembershipId: actor.membershipId,
        correlationId: origin.correlationId,
        source: entry.source,
      },
      prepared.lines,
    ),
    ...event,
    ...(entry.after ?? []),
  ];
  const answer = (results: Record<string, unknown>[][]): Written & { replayed: false } => {
    // The caller's first, the audit event answers no row, the posting one, the webhook event one; then the caller's.
    const posted = results[before.length + 1]![0];
    const recorded = event.length > 0 ? results[before.length + 2]![0] : undefined;
    const after = results.slice(before.length + 2 + event.length);
    const { number, lockedThrough, postedAt } = postedEntryOf(posted!);
    if (!postedAt) {
      throw new AppError('period-closed', `The ledger is closed through ${lockedThrough}; date the entry after it`, { closedThrough: lockedThrough });
    }
    return {
      replayed: false,
      starts: recorded ? recordedStartsOf(recorded) : [],
      after,
      entry: {
        id: entry.id,
        number,
        entryDate: prepared.entryDate,
        description: prepared.description,
        reference: prepared.reference,
        kind: 'POSTING',
        source: entry.source,
        lines: prepared.lines.map(({ lineNo, accountCode, subaccountId, counterpartyId, debit, credit, memo, currency, currencyAmount, rate, rateSource, rateDate }) => ({
          lineNo,
          accountCode,
          subaccountId,
          counterpartyId,
          debit,
          credit,
          memo,
          currency,
          currencyAmount,
          rate,
          rateSource,
          rateDate,
        })),
        totalDebit: formatMinorUnits(prepared.total),
        totalCredit: formatMinorUnits(prepared.total),
        reversalOf: prepared.reversalOf,
        reversedBy: null,
        postedAt: postedAt.toISOString(),
        postedByMembershipId: actor.membershipId,
        correlationId: origin.correlationId,
      },
    };
  };
  return { statements, late: entry.late ?? [], answer };
}

/**
 * The answer to a refusal the database made at commit or on the posting statement (the ledger's triggers):
 * the problem, or null when the caller decides (a duplicate requestId or reversal target).
 */
export function postingProblemOf(err: unknown): AppError | null {
  if (err instanceof LedgerRuleError && err.rule === 'period-closed') return new AppError('period-closed', 'The period of this date is closed or closing');
  if (err instanceof LedgerRuleError && err.rule === 'header-account') {
    return new AppError('header-account', 'A line names a header account; post to one of its detail accounts');
  }
  if (err instanceof LedgerRuleError && err.rule === 'document-frozen') return new AppError('document-state', 'The document was posted or cancelled by another request');
  return null;
}


/**
 * The CBU rate a document in `currency` dated `date` converts at: the latest stored on or before the date
 * (null for UZS); 409 rate-unavailable when none is stored.
 */
export async function documentRate(tx: Tx, currency: string, date: string): Promise<{ rate: string; rateDate: string } | null> {
  return rateOrRefusal(currency === FUNCTIONAL_CURRENCY ? undefined : (await cbuRatesOn(tx, [currency], date)).get(currency), currency, date);
}

/**
 * documentRate, from a posting context read for the document's date with its currency among those to rate
 * (the context's rates are the latest stored on or before the entry's date).
 */
export function storedRateOf(context: PostingContext, currency: string, date: string): { rate: string; rateDate: string } | null {
  return rateOrRefusal(context.rates.get(currency), currency, date);
}

function rateOrRefusal(rate: { rate: string; rateDate: string } | undefined, currency: string, date: string): { rate: string; rateDate: string } | null {
  if (currency === FUNCTIONAL_CURRENCY) return null;
  if (!rate) throw new AppError('rate-unavailable', `No CBU rate is stored for ${currency} on or before ${date}`, { currencies: [currency], date });
  return rate;
}
