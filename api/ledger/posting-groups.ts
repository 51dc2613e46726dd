import { setImmediate } from 'node:timers';
import type { Sequelize } from 'sequelize';
import { selectResults, withTenant, type LateText, type Statement } from '../../db/connection';
import type { RecordedStart } from '../../db/repositories/webhooks/events';
import { AppError } from '../../core/shared/problems';
import type { PostingGroupOutcome } from '../http/metrics';
import type { CompanyScope, Opened } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';

/**
 * Items queued per key and handed to `run` in batches (group commit). A key runs at most `maxRunning` batches
 * at a time; what arrives meanwhile waits, and the next batch takes up to `maxBatch` of it. An item that finds
 * its key idle waits only for the event loop's turn (the requests read in the same turn join it), so a lone
 * request is not delayed by a timer, and the batches grow with the load: the busier a key, the more each of its
 * transactions carries. `run` settles its items itself and never rejects.
 *
 * Written here rather than taken from a library: batching loaders (DataLoader) batch per tick and per load, not
 * per key while the key's previous batch is still running, which is what spreads one company's ledger row over
 * several postings.
 */
export class KeyedBatches<T> {
  private readonly keys = new Map<string, { waiting: T[]; running: number; scheduled: boolean }>();

  constructor(
    private readonly run: (batch: T[]) => Promise<void>,
    private readonly options: { maxBatch: number; maxRunning: number },
  ) {}

  add(key: string, item: T): void {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { waiting: [], running: 0, scheduled: false }));
    state.waiting.push(item);
    if (state.scheduled || state.running >= this.options.maxRunning) return;
    state.scheduled = true;
    const scheduled = state;
    setImmediate(() => {
      scheduled.scheduled = false;
      this.pump(key, scheduled);
    });
  }

  private pump(key: string, state: { waiting: T[]; running: number; scheduled: boolean }): void {
    while (state.running < this.options.maxRunning && state.waiting.length > 0) {
      const batch = state.waiting.splice(0, this.options.maxBatch);
      state.running += 1;
      void this.run(batch).finally(() => {
        state.running -= 1;
        if (state.waiting.length > 0) this.pump(key, state);
        else if (state.running === 0 && !state.scheduled && this.keys.get(key) === state) this.keys.delete(key);
      });
    }
  }
}

/**
 * One posting (a journal entry, an invoice's posting) offered to its company's group commit. The group reads
 * every posting's `opening` in its transaction's first round trip, asks each to `plan` its write from those
 * rows, sends every planned write in one round trip and commits once.
 */
export interface GroupedPosting<R> {
  scope: CompanyScope;
  /** Two postings with the same key never share a group (the same requestId, the same document): the later one is tried alone after it. */
  key: string;
  opening: Statement[];
  /**
   * The posting's write from its opening's rows: its statements, their late texts and its answer from their
   * results (the answer may throw a refusal the write itself reveals: the group is then retried alone). Null,
   * or a refusal thrown (an AppError), when the group cannot take it: it is tried alone after the group.
   */
  plan(opened: Opened): PlannedPosting<R> | null;
  /** The posting in its own transaction, as when it arrives alone: what it answers is the posting's answer. */
  alone(): Promise<R>;
}

export interface PlannedPosting<R> {
  statements: Statement[];
  late?: LateText[];
  answer(results: Opened): { result: R; starts: RecordedStart[] };
}

interface Queued {
  posting: GroupedPosting<unknown>;
  settle(outcome: Promise<unknown>): void;
}

/** The most postings one group commit carries. */
const MAX_GROUP = 32;
/** A company's group commits in flight at once: one holds the ledger row while the next one opens. */
const GROUPS_RUNNING = 2;

export interface PostingGroups {
  /** Posts through the company's next group commit; answers exactly as `posting.alone()` would. */
  post<R>(posting: GroupedPosting<R>): Promise<R>;
}

/**
 * Group commit of the postings of one company (journal entries, invoices): those that arrive while the
 * company's previous group is still running share one transaction, each checked on its own and written with its
 * own number, audit event and webhook events, so one company's postings no longer queue one by one on its ledger
 * row. A posting that arrives alone is posted alone. A posting the group's checks refuse is tried alone after
 * the group, so its answer is exactly a lone posting's; when the write or the commit fails (a date the cut-off
 * refuses, a race another transaction won), nothing of the group was written and every posting is tried alone.
 */
export function createPostingGroups(deps: {
  db: Sequelize;
  webhookEvents: Pick<WebhookEvents, 'dispatch'>;
  observe?: (size: number, outcome: PostingGroupOutcome) => void;
}): PostingGroups {
  const observe = deps.observe ?? (() => undefined);

  async function commitGroup(postings: GroupedPosting<unknown>[]) {
    const { tenantId } = postings[0]!.scope;
    return withTenant(
      deps.db,
      tenantId,
      async (tx, opened) => {
        const planned: Array<{ posting: GroupedPosting<unknown>; plan: PlannedPosting<unknown> }> = [];
        const alone: GroupedPosting<unknown>[] = [];
        let at = 0;
        for (const posting of postings) {
          const rows = opened.slice(at, (at += posting.opening.length));
          let plan: PlannedPosting<unknown> | null;
          try {
            plan = posting.plan(rows);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            plan = null;
          }
          if (plan) planned.push({ posting, plan });
          else alone.push(posting);
        }
        const statements = planned.flatMap((p) => p.plan.statements);
        const results = statements.length > 0 ? await selectResults(tx, statements, { late: planned.flatMap((p) => p.plan.late ?? []) }) : [];
        at = 0;
        const answered = planned.map(({ posting, plan }) => ({ posting, ...plan.answer(results.slice(at, (at += plan.statements.length))) }));
        return { answered, alone };
      },
      postings.flatMap((p) => p.opening),
    );
  }

  async function runGroup(queued: Queued[]): Promise<void> {
    const tryAlone = (q: Queued) => {
      const outcome = q.posting.alone();
      q.settle(outcome);
      return outcome.catch(() => undefined);
    };
    if (queued.length === 1) {
      observe(1, 'alone');
      await tryAlone(queued[0]!);
      return;
    }
    // A key once per group: a repeat is tried alone after it.
    const seen = new Set<string>();
    const grouped: Queued[] = [];
    const repeats: Queued[] = [];
    for (const q of queued) {
      (seen.has(q.posting.key) ? repeats : grouped).push(q);
      seen.add(q.posting.key);
    }
    let alone: Queued[];
    try {
      const { answered, alone: left } = await commitGroup(grouped.map((q) => q.posting));
      observe(grouped.length, 'committed');
      const byPosting = new Map(grouped.map((q) => [q.posting, q]));
      for (const a of answered) byPosting.get(a.posting)!.settle(deps.webhookEvents.dispatch(a.starts).then(() => a.result));
      alone = [...left.map((p) => byPosting.get(p)!), ...repeats];
    } catch {
      // Nothing of the group was written: each posting is tried alone, and answered as it would have been.
      observe(grouped.length, 'retried-alone');
      alone = [...grouped, ...repeats];
    }
    await Promise.all(alone.map(tryAlone));
  }

  const batches = new KeyedBatches<Queued>(runGroup, { maxBatch: MAX_GROUP, maxRunning: GROUPS_RUNNING });
  return {
    post<R>(posting: GroupedPosting<R>): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        batches.add(`${posting.scope.tenantId}/${posting.scope.legalEntityId}`, {
          posting: posting as GroupedPosting<unknown>,
          settle: (outcome) => void (outcome as Promise<R>).then(resolve, reject),
        });
      });
    },
  };
}
