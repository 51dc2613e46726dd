import { QueryTypes, type Transaction } from 'sequelize';
import type { Response } from 'supertest';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi, simpleEntry } from '../../helpers/ledger';
import { aCounterparty, invoiceEvents, invoicesApi, salesBody, saveTaxSettings } from '../../helpers/invoices';

// Group commit: the journal postings one company receives at once are written in one transaction, each with
// its own number, audit event and answer, and a posting the group cannot take is answered as if it had
// arrived alone. To make the postings arrive together, each test holds the company's ledger row from the
// admin connection: the first transactions wait on it, and what arrives meanwhile queues for the next group.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

/** The histogram's count and sum of group sizes for an outcome. */
async function groups(outcome: 'alone' | 'committed' | 'retried-alone'): Promise<{ count: number; sum: number }> {
  const metric = await stack.metrics.registry.getSingleMetric('ledger_posting_group_size')!.get();
  const value = (suffix: string) => metric.values.find((v) => (v as { metricName?: string }).metricName === `ledger_posting_group_size_${suffix}` && v.labels.outcome === outcome)?.value ?? 0;
  return { count: value('count'), sum: value('sum') };
}

/**
 * Holds the company's ledger row (the row every posting takes for its number) until `release`; `waiting`
 * answers whether `n` transactions wait for it within `tries` looks, 50 ms apart.
 */
async function holdLedgerRow(legalEntityId: string): Promise<{ waiting(n: number, tries: number): Promise<boolean>; release(): Promise<void> }> {
  let free!: () => void;
  const held = new Promise<void>((resolve) => (free = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  let holderPid = 0;
  const holder = stack.admin.transaction(async (tx: Transaction) => {
    await stack.admin.query('SELECT 1 FROM ledger_states WHERE legal_entity_id = :legalEntityId FOR UPDATE', { replacements: { legalEntityId }, transaction: tx });
    const [{ pid }] = await stack.admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', { type: QueryTypes.SELECT, transaction: tx });
    holderPid = pid;
    locked();
    await held;
  });
  await Promise.race([lockTaken, holder]);
  return {
    async waiting(n, tries) {
      for (let i = 0; i < tries; i++) {
        // The transactions the holder blocks, and those they block in turn (an invoice's sales number).
        const [row] = await stack.admin.query<{ n: number }>(
          `WITH RECURSIVE blocked(pid) AS (
             SELECT pid FROM pg_stat_activity WHERE CAST(:holderPid AS int) = ANY(pg_blocking_pids(pid))
             UNION
             SELECT a.pid FROM pg_stat_activity a JOIN blocked b ON b.pid = ANY(pg_blocking_pids(a.pid)))
           SELECT count(*)::int AS n FROM blocked`,
          { replacements: { holderPid }, type: QueryTypes.SELECT },
        );
        if (row!.n >= n) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    },
    async release() {
      free();
      await holder;
    },
  };
}

/** Sends `requests` at once while the ledger row is held, and answers the responses in order once it is released. */
async function together(user: Registered, requests: Array<() => PromiseLike<Response>>): Promise<Response[]> {
  const row = await holdLedgerRow(user.me.company.id);
  const answers = Promise.all(requests.map((send) => send()));
  try {
    // The first group waits on the row. The one after it waits too when the first did not take every request
    // (when it did, its refused postings wait in the API to be posted alone after it, not on the row: so the
    // second is waited for a while, not required); the rest queue behind them meanwhile.
    if (!(await row.waiting(1, 300))) throw new Error('no transaction waited for the ledger row');
    await row.waiting(2, 40);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await row.release();
  }
  return answers;
}

/** Posts `bodies` as journal entries at once (together). */
function postTogether(user: Registered, bodies: object[]): Promise<Response[]> {
  const ledger = ledgerApi(stack, user);
  return together(user, bodies.map((body) => () => ledger.post(body).then((res) => res)));
}

async function workspaceWithEntry(): Promise<Registered> {
  const user = await registerWorkspace(stack);
  // The company's ledger row exists from its first posting.
  await ledgerApi(stack, user).post(simpleEntry('2025-03-01', '1.00')).expect(201);
  return user;
}

describe('group commit of journal postings', () => {
  test('postings that arrive together commit in groups, each with its own gapless number, audit event and stored entry', async () => {
    const user = await workspaceWithEntry();
    const before = await groups('committed');
    const bodies = Array.from({ length: 16 }, (_, i) => simpleEntry('2025-03-02', `${i + 1}.25`));
    const answers = await postTogether(user, bodies);
    expect(answers.map((r) => r.status)).toEqual(bodies.map(() => 201));
    expect(answers.map((r) => r.body.number as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 2));
    answers.forEach((res, i) => expect(res.body.totalDebit).toBe(`${i + 1}.25`));
    const after = await groups('committed');
    expect(after.count).toBeGreaterThan(before.count);
    expect(after.sum - before.sum).toBeGreaterThanOrEqual(2);

    const ledger = ledgerApi(stack, user);
    for (const res of answers) expect((await ledger.get(res.body.id).expect(200)).body).toEqual(res.body);
    const events = await stack.admin.query<{ subject_id: string; correlation_id: string }>(
      "SELECT subject_id, correlation_id FROM audit_events WHERE tenant_id = :tenantId AND action = 'ledger.entry.posted' AND subject_id IN (:ids)",
      { replacements: { tenantId: user.me.tenantId, ids: answers.map((r) => r.body.id) }, type: QueryTypes.SELECT },
    );
    expect(new Map(events.map((e) => [e.subject_id, e.correlation_id]))).toEqual(new Map(answers.map((r) => [r.body.id, r.body.correlationId])));
  });

  test('a posting a check refuses, and a requestId sent twice, are answered as alone while the rest of the group posts', async () => {
    const user = await workspaceWithEntry();
    const good = Array.from({ length: 8 }, (_, i) => simpleEntry('2025-03-03', `${i + 1}.00`));
    const unknown = simpleEntry('2025-03-03', '5.00', '5111');
    // A requestId an entry already committed took, with another body (which of two new requests with one
    // requestId arrives first is the network's choice: the same body sent twice is the case taken here).
    const earlier = simpleEntry('2025-03-03', '9.00');
    await ledgerApi(stack, user).post(earlier).expect(201);
    const reused = { ...earlier, description: 'Another entry under the same requestId' };
    const answers = await postTogether(user, [...good, unknown, good[1]!, reused]);
    expect(answers.slice(0, 8).map((r) => r.status)).toEqual(good.map(() => 201));
    expect(answers.slice(0, 8).map((r) => r.body.number as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => i + 3));
    // The unknown account: 400, exactly as when it is posted alone.
    expect(answers[8]!.status).toBe(400);
    const alone = await ledgerApi(stack, user).post(simpleEntry('2025-03-03', '5.00', '5111')).expect(400);
    expect(answers[8]!.body).toEqual({ ...alone.body, instance: answers[8]!.body.instance });
    // The same body again: the entry the first one posted. The same requestId with another body: 409.
    expect(answers[9]!.status).toBe(201);
    expect(answers[9]!.body).toEqual(answers[1]!.body);
    expect(answers[10]!.status).toBe(409);
    expect(answers[10]!.body.type).toBe('/problems/request-id-reused');
    const list = await ledgerApi(stack, user).list({ size: 100 }).expect(200);
    expect(list.body.totalElements).toBe(10);
  });

  test('a date the cut-off refuses fails only its own posting: the group is retried alone, and the numbers stay gapless', async () => {
    const user = await workspaceWithEntry();
    await stack.admin.query("UPDATE ledger_states SET locked_through = DATE '2025-03-31' WHERE legal_entity_id = :legalEntityId", {
      replacements: { legalEntityId: user.me.company.id },
    });
    const before = await groups('retried-alone');
    const good = Array.from({ length: 8 }, (_, i) => simpleEntry('2025-04-02', `${i + 1}.00`));
    const closed = simpleEntry('2025-03-15', '7.00');
    const answers = await postTogether(user, [...good.slice(0, 4), closed, ...good.slice(4)]);
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 409, 201, 201, 201, 201]);
    expect(answers[4]!.body.type).toBe('/problems/period-closed');
    const numbers = answers.filter((r) => r.status === 201).map((r) => r.body.number as number);
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => i + 2));
    expect((await groups('retried-alone')).count).toBeGreaterThan(before.count);
    // Nothing of the refused posting was kept, not even its audit event.
    const [events] = await stack.admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_events WHERE tenant_id = :tenantId AND action = 'ledger.entry.posted'",
      { replacements: { tenantId: user.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(events!.n).toBe(9);
  });

  test('an unbalanced entry is refused before it is queued, beside postings that are', async () => {
    const user = await workspaceWithEntry();
    const ledger = ledgerApi(stack, user);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => ledger.post(simpleEntry('2025-03-04', `${i + 1}.00`))),
      ledger.post(entryBody('2025-03-04', [{ accountCode: '5110', debit: '1.00' }, { accountCode: '9010', credit: '0.99' }])),
    ]);
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 400]);
    expect(answers[4]!.body.type).toBe('/problems/entry-unbalanced');
  });

  test('invoices and journal entries of one company share groups: gapless sales and entry numbers, one posting per invoice, even when it is posted twice at once', async () => {
    const user = await workspaceWithEntry();
    await saveTaxSettings(stack, user);
    const customer = await aCounterparty(stack, user);
    const invoices = invoicesApi(stack, user);
    const drafts: string[] = [];
    for (let i = 0; i < 6; i++) drafts.push((await invoices.create(salesBody(customer, '2025-03-05', { lines: [{ description: 'Goods', quantity: '1', unitPrice: `${i + 1}000.00` }] })).expect(201)).body.id);
    const before = await groups('committed');
    const ledger = ledgerApi(stack, user);
    const answers = await together(user, [
      ...drafts.map((id) => () => invoices.post(id).then((res) => res)),
      () => invoices.post(drafts[0]!).then((res) => res),
      ...Array.from({ length: 4 }, (_, i) => () => ledger.post(simpleEntry('2025-03-05', `${i + 1}.50`)).then((res) => res)),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 201, 201, 201, 201]);
    expect((await groups('committed')).count).toBeGreaterThan(before.count);
    // The invoice posted twice at once: one posting, answered the same both times.
    expect(answers[6]!.body).toEqual(answers[0]!.body);
    const numbers = answers.slice(0, 6).map((r) => r.body.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 6 }, (_, i) => `2025-${String(i + 1).padStart(6, '0')}`));
    answers.slice(0, 6).forEach((r, i) => expect(r.body).toMatchObject({ status: 'POSTED', totalGross: `${(i + 1) * 1120}.00` }));
    const entries = await ledger.list({ size: 100 }).expect(200);
    expect(entries.body.totalElements).toBe(11);
    expect(entries.body.items.map((e: { number: number }) => e.number).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    // Each invoice's entry is the one it names, dated and described as its own.
    for (const r of answers.slice(0, 6)) {
      const entry = await ledger.get(r.body.entryId).expect(200);
      expect(entry.body).toMatchObject({ reference: r.body.number, source: { type: 'INVOICE', id: r.body.id }, totalDebit: r.body.totalGross });
    }
    expect((await invoiceEvents(stack, user)).filter((e) => e.action === 'invoice.posted')).toHaveLength(6);
  });
});
