import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { snapshotLockKey } from '../../db/repositories/ledger/period-closes';
import { api, bearer, type Registered } from './clients';
import type { TestStack } from './stack';

export interface LineSpec {
  accountCode: string;
  debit?: string;
  credit?: string;
  subaccountId?: string;
  memo?: string;
}

/** A JournalEntryCreate body: lines default the missing side to "0". */
export function entryBody(entryDate: string, lines: LineSpec[], extra: Record<string, unknown> = {}) {
  return {
    requestId: randomUUID(),
    entryDate,
    description: `Entry of ${entryDate}`,
    lines: lines.map((l) => ({ ...l, debit: l.debit ?? '0', credit: l.credit ?? '0' })),
    ...extra,
  };
}

/** Two lines: debit one account, credit another. */
export function simpleEntry(entryDate: string, amount: string, debit = '5110', credit = '9010') {
  return entryBody(entryDate, [
    { accountCode: debit, debit: amount },
    { accountCode: credit, credit: amount },
  ]);
}

export function ledgerApi(stack: TestStack, user: Registered) {
  const base = `/api/v1/ledger/${user.me.company.id}`;
  const auth = bearer(user.accessToken);
  return {
    base,
    post: (body: unknown) => api(stack).post(`${base}/entries`).set(...auth).send(body as object),
    reverse: (entryId: string, body: unknown) => api(stack).post(`${base}/entries/${entryId}/reversal`).set(...auth).send(body as object),
    get: (entryId: string) => api(stack).get(`${base}/entries/${entryId}`).set(...auth),
    list: (query: Record<string, string | number> = {}) => api(stack).get(`${base}/entries`).query(query).set(...auth),
    trialBalance: (asOf: string) => api(stack).get(`${base}/trial-balance`).query({ asOf }).set(...auth),
    close: (closeDate: string, requestId: string = randomUUID()) => api(stack).post(`${base}/periods/close`).set(...auth).send({ requestId, closeDate }),
    closes: () => api(stack).get(`${base}/periods`).set(...auth),
    getClose: (closeId: string) => api(stack).get(`${base}/periods/${closeId}`).set(...auth),
  };
}

/** Polls a close until it leaves RUNNING. */
export async function waitForClose(ledger: ReturnType<typeof ledgerApi>, closeId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await ledger.getClose(closeId).expect(200);
    if (res.body.status !== 'RUNNING') return res.body;
    if (Date.now() > deadline) throw new Error(`close ${closeId} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Takes the advisory lock a close's snapshot step takes (snapshotLockKey), in a transaction of the admin
 * connection, so a close of that company and date waits in its snapshot step until `release`.
 */
export async function holdSnapshotStep(stack: TestStack, legalEntityId: string, closeDate: string): Promise<{ release(): Promise<void> }> {
  let free!: () => void;
  const held = new Promise<void>((resolve) => (free = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holder = stack.admin.transaction(async (tx: Transaction) => {
    await stack.admin.query('SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', {
      replacements: { key: snapshotLockKey(legalEntityId, closeDate) },
      transaction: tx,
    });
    locked();
    await held;
  });
  await Promise.race([lockTaken, holder]);
  return {
    async release() {
      free();
      await holder;
    },
  };
}
