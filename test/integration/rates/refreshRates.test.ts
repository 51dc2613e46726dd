import type { ScheduleDescription } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { fixture, startRateFeeds, type RateFeeds } from '../../helpers/rate-feeds';
import { startWorkerProcess, until } from '../../helpers/worker-process';
import { ensureRatesSchedule } from '../../../adapters/temporal/rates-schedule';
import type { RefreshRatesResult } from '../../../contracts/rates';
import { startReceiver } from '../../helpers/webhook-deliveries';
import { deliveryStarts, storedWebhooks, webhooksApi } from '../../helpers/webhook-endpoints';

// The rates-refresh Schedule, its workflow with one activity per source, FRESH / STALE /
// UNAVAILABLE, history by effective day. The banks are a local server serving recorded documents.
// Rates are global (every workspace reads the same), so this file owns the rate tables: other files'
// stacks only ever fail to reach their sources, which moves lastAttemptAt and nothing else.

const INTERVAL = 3600;
let stack: TestStack;
let feeds: RateFeeds;
let owner: Registered;
let accountantToken: string;

beforeAll(async () => {
  feeds = await startRateFeeds();
  feeds.serve('cbu', fixture('cbu-2026-11-20.json'));
  feeds.serve('bank', fixture('bank-2026-11-20.json'));
  // Its own database: it empties the rates every workspace shares, which the ledger's currency tests store.
  stack = await startTestStack(
    {
      RATES_CBU_URL: feeds.url('cbu'),
      RATES_BANK_URL: feeds.url('bank'),
      RATES_REFRESH_INTERVAL_SECONDS: String(INTERVAL),
    },
    { ownDatabase: 'rates' },
  );
  owner = await registerWorkspace(stack);
  accountantToken = (await addMember(stack, owner.me.tenantId, ['ACCOUNTANT'])).accessToken;
  await stack.admin.query('DELETE FROM exchange_rates');
  await stack.admin.query('UPDATE rate_sources SET last_attempt_at = NULL, last_success_at = NULL, last_error = NULL');
});
afterAll(async () => {
  await stack.stop();
  await feeds.close();
});

const schedule = () => stack.temporal.schedule.getHandle(stack.config.rates.scheduleId);
const settings = (refreshIntervalSeconds = INTERVAL) => ({ ...stack.config.rates, refreshIntervalSeconds, taskQueue: stack.taskQueue });
const rates = (query = '', token = owner.accessToken) => api(stack).get(`/api/v1/rates${query}`).set(...bearer(token));

/** The Schedule once it has taken `taken` runs and none is running. */
function settled(taken: number): Promise<ScheduleDescription> {
  return until(async () => {
    const d = await schedule().describe();
    return d.info.numActionsTaken >= taken && d.info.runningActions.length === 0 ? d : null;
  }, 30_000, `the Schedule to finish run ${taken}`);
}

/** The result of the Schedule's newest run. */
async function newestRun(d: ScheduleDescription): Promise<RefreshRatesResult> {
  const newest = [...d.info.recentActions].sort((a, b) => a.takenAt.getTime() - b.takenAt.getTime()).at(-1)!;
  return stack.temporal.workflow.getHandle(newest.action.workflow.workflowId, newest.action.workflow.firstExecutionRunId).result();
}

/** POST /rates/refresh as the ADMIN, then the run it caused. */
async function refresh(): Promise<RefreshRatesResult> {
  const before = (await schedule().describe()).info.numActionsTaken;
  const res = await api(stack).post('/api/v1/rates/refresh').set(...bearer(owner.accessToken)).expect(202);
  expect(res.body).toEqual({ scheduleId: stack.config.rates.scheduleId, requestedAt: expect.any(String) });
  return newestRun(await settled(before + 1));
}

const item = (body: { items: Array<{ code: string }> }, code: string) => body.items.find((i) => i.code === code);

describe('listRates and refreshRates: exchange rates (refreshRatesWorkflow, the rates-refresh Schedule)', () => {
  test('before any refresh: UNAVAILABLE, only the base currency, no 500', async () => {
    const res = await rates().expect(200);
    expect(res.body).toMatchObject({ baseCurrency: 'UZS', source: 'CBU', status: 'UNAVAILABLE', stale: true, updatedAt: null, refreshIntervalSeconds: INTERVAL });
    expect(res.body.items).toEqual([
      expect.objectContaining({ code: 'UZS', base: true, rate: 1, buyRate: null, sellRate: null, symbol: expect.any(String), name: expect.any(String) }),
    ]);
  });

  test('a started worker creates the Schedule with the configured interval and SKIP overlap; it runs at once', async () => {
    const child = startWorkerProcess(stack, { LOG_LEVEL: 'warn' });
    try {
      const described = await until(() => schedule().describe().catch(() => null), 60_000, 'the worker to create the Schedule');
      expect(described.spec.intervals?.map((i) => [i.every, i.offset ?? 0])).toEqual([[INTERVAL * 1000, 0]]);
      expect(described.policies.overlap).toBe('SKIP');
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'refreshRatesWorkflow', taskQueue: stack.taskQueue });
      // A new Schedule runs once at once, so a fresh installation has rates without waiting an interval.
      const result = await newestRun(await settled(1));
      expect(result.sources).toEqual([
        { source: 'CBU', status: 'STORED', rates: 14, skippedRows: 0, changed: 14 },
        { source: 'BANK', status: 'STORED', rates: 6, skippedRows: 2, changed: 6 },
      ]);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 90_000);

  test('starting again leaves the Schedule as it is; a changed interval updates it', async () => {
    expect(await ensureRatesSchedule(stack.temporal, settings())).toBe('UNCHANGED');
    expect(await ensureRatesSchedule(stack.temporal, settings(7200))).toBe('UPDATED');
    expect((await schedule().describe()).spec.intervals?.map((i) => i.every)).toEqual([7_200_000]);
    expect(await ensureRatesSchedule(stack.temporal, settings())).toBe('UPDATED');
    expect((await schedule().describe()).spec.intervals?.map((i) => i.every)).toEqual([INTERVAL * 1000]);
  });

  test('FRESH after a refresh: CBU rates per one unit, exact in the JSON text, with the base currency first', async () => {
    const res = await rates('?date=2026-11-20').expect(200);
    expect(res.body).toMatchObject({ source: 'CBU', status: 'FRESH', stale: false, updatedAt: expect.any(String), lastAttemptAt: expect.any(String) });
    expect(res.body.items).toHaveLength(15);
    expect(res.body.items[0]).toMatchObject({ code: 'UZS', base: true, rate: 1, effectiveDate: '2026-11-20' });
    expect(item(res.body, 'USD')).toEqual({
      code: 'USD',
      name: 'US Dollar',
      symbol: '$',
      base: false,
      effectiveDate: '2026-11-20',
      updatedAt: expect.any(String),
      sourceUpdatedAt: '2026-11-19T19:00:00.000Z',
      rate: 12046.26,
      buyRate: null,
      sellRate: null,
    });
    // The numbers as written on the wire: no float noise, no lost digits.
    expect(res.text).toMatch(/"code":"IDR"[^}]*"rate":0\.77,/);
    expect(res.text).toMatch(/"code":"IRR"[^}]*"rate":0\.286,/);
    expect(res.text).toMatch(/"code":"LAK"[^}]*"rate":0\.5571,/);
    // Stored as NUMERIC with the same digits.
    const [stored] = await stack.admin.query<{ rate: string }>("SELECT rate::text FROM exchange_rates WHERE source = 'CBU' AND currency_code = 'IDR'", {
      type: QueryTypes.SELECT,
    });
    expect(stored!.rate).toBe('0.7700000000');
  });

  test('BANK: buy and sell, rate null; the base currency is 1 both ways', async () => {
    const res = await rates('?source=BANK&date=2026-11-20').expect(200);
    expect(res.body).toMatchObject({ source: 'BANK', status: 'FRESH' });
    expect(res.body.items[0]).toMatchObject({ code: 'UZS', base: true, rate: 1, buyRate: 1, sellRate: 1 });
    expect(item(res.body, 'USD')).toMatchObject({ rate: null, buyRate: 11990, sellRate: 12090, sourceUpdatedAt: '2026-11-20T04:00:01.000Z' });
    expect(item(res.body, 'KZT')).toBeUndefined(); // the bank does not trade it
  });

  test('history: a new publication does not replace the old day, and each day reads its own rates', async () => {
    feeds.serve('cbu', fixture('cbu-2026-11-21.json'));
    const result = await refresh();
    expect(result.sources[0]).toEqual({ source: 'CBU', status: 'STORED', rates: 14, skippedRows: 0, changed: 14 });
    expect(result.sources[1]).toMatchObject({ source: 'BANK', status: 'STORED', changed: 0 }); // the same quotes again
    expect(item((await rates('?date=2026-11-20').expect(200)).body, 'USD')).toMatchObject({ rate: 12046.26, effectiveDate: '2026-11-20' });
    expect(item((await rates('?date=2026-11-21').expect(200)).body, 'USD')).toMatchObject({ rate: 12058.31, effectiveDate: '2026-11-21' });
    // A later day without a publication (a weekend) reads the last one; today is after both.
    expect(item((await rates('?date=2026-11-22').expect(200)).body, 'USD')).toMatchObject({ effectiveDate: '2026-11-21' });
    expect(item((await rates().expect(200)).body, 'USD')).toMatchObject({ effectiveDate: '2026-11-21' });
    // A day before the first publication has no rate.
    const before = await rates('?date=2026-11-19').expect(200);
    expect(before.body).toMatchObject({ status: 'UNAVAILABLE', stale: true });
    expect(before.body.items.map((i: { code: string }) => i.code)).toEqual(['UZS']);
  });

  test('rates.refreshed: a refresh that stores new rates is one event in each workspace with a live subscribed endpoint and none elsewhere; an unchanged refresh is none', async () => {
    const receiver = await startReceiver();
    try {
      const hooks = webhooksApi(stack, owner);
      const first = (await hooks.create({ url: receiver.url, eventTypes: ['rates.refreshed'] }).expect(201)).body.id;
      const second = (await hooks.create({ url: receiver.url, eventTypes: ['member.joined', 'rates.refreshed'] }).expect(201)).body.id;
      const elsewhere = await registerWorkspace(stack);
      await webhooksApi(stack, elsewhere).create({ url: receiver.url, eventTypes: ['journal-entry.posted'] }).expect(201);
      const disabled = await registerWorkspace(stack);
      const off = (await webhooksApi(stack, disabled).create({ url: receiver.url, eventTypes: ['rates.refreshed'] }).expect(201)).body.id;
      await webhooksApi(stack, disabled).update(off, { url: receiver.url, eventTypes: ['rates.refreshed'], enabled: false, lockVersion: 1 }).expect(200);

      // The central bank's latest day is stored anew (its rows are removed first); the commercial bank's quotes are unchanged.
      await stack.admin.query("DELETE FROM exchange_rates WHERE source = 'CBU' AND effective_date = '2026-11-21'");
      const result = await refresh();
      expect(result.sources.map((s) => ('changed' in s ? [s.source, s.changed] : [s.source, s.status]))).toEqual([['CBU', 14], ['BANK', 0]]);

      const { events, deliveries } = await storedWebhooks(stack, owner.me.tenantId);
      expect(events.map((e) => [e.type, e.payload])).toEqual([['rates.refreshed', { source: 'CBU', effectiveDate: '2026-11-21', changedRates: 14 }]]);
      expect(deliveries.map((d) => d.endpoint_id).sort()).toEqual([first, second].sort());
      // Written by the workflow's activity with this workspace as the transaction's tenant; due at once for the relay.
      const starts = await deliveryStarts(stack, events[0]!.id);
      expect(starts.map((s) => [s.tenant_attribute, s.due_now])).toEqual([[owner.me.tenantId, true], [owner.me.tenantId, true]]);
      expect(await storedWebhooks(stack, elsewhere.me.tenantId)).toEqual({ events: [], deliveries: [] });
      expect(await storedWebhooks(stack, disabled.me.tenantId)).toEqual({ events: [], deliveries: [] });
      await until(async () => (receiver.received.filter((r) => r.headers['webhook-id'] === events[0]!.id).length === 2 ? true : null), 15_000, 'both deliveries received');

      await refresh();
      expect((await storedWebhooks(stack, owner.me.tenantId)).events).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  test('FRESH → STALE when the last success is two intervals old (moved through the stored timestamp)', async () => {
    const age = async (seconds: number) => {
      await stack.admin.query("UPDATE rate_sources SET last_success_at = now() - make_interval(secs => :seconds) WHERE code = 'CBU'", {
        replacements: { seconds },
      });
      return (await rates().expect(200)).body;
    };
    expect(await age(2 * INTERVAL - 60)).toMatchObject({ status: 'FRESH', stale: false });
    expect(await age(2 * INTERVAL + 1)).toMatchObject({ status: 'STALE', stale: true });
    expect((await age(30 * 86400)).items.length).toBe(15); // stale rates are still answered
  });

  test('one source down: its rates and last success stay, the other source is stored, lastAttemptAt moves for both', async () => {
    const before = (await rates('?source=BANK').expect(200)).body;
    feeds.serve('bank', { status: 503, body: 'Service Unavailable' });
    const hitsBefore = feeds.hits('bank');
    const result = await refresh();
    expect(result.sources[0]).toMatchObject({ source: 'CBU', status: 'STORED' });
    expect(result.sources[1]).toEqual({ source: 'BANK', status: 'FAILED', reason: expect.stringMatching(/Commercial bank: 127\.0\.0\.1:\d+ answered HTTP 503/) });
    expect(feeds.hits('bank') - hitsBefore).toBe(3); // its retry profile: three attempts
    const after = (await rates('?source=BANK').expect(200)).body;
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.lastAttemptAt > before.lastAttemptAt).toBe(true);
    expect(item(after, 'USD')).toMatchObject({ buyRate: 11990, sellRate: 12090 });
    const cbu = (await rates().expect(200)).body;
    expect(cbu).toMatchObject({ status: 'FRESH' });
    const [state] = await stack.admin.query<{ last_error: string }>("SELECT last_error FROM rate_sources WHERE code = 'BANK'", { type: QueryTypes.SELECT });
    expect(state!.last_error).toMatch(/answered HTTP 503/);
    feeds.serve('bank', fixture('bank-2026-11-20.json'));
  }, 60_000);

  test('a malformed document fails its activity once (non-retryable) with a clear reason; the stored rates stay', async () => {
    feeds.serve('cbu', { status: 200, body: '<html><body>Technical works</body></html>', contentType: 'text/html' });
    const hitsBefore = feeds.hits('cbu');
    const result = await refresh();
    expect(result.sources[0]).toEqual({
      source: 'CBU',
      status: 'FAILED',
      reason: 'Central Bank of Uzbekistan: the document is not JSON (starts with "<html><body>Technical works</body></html")',
    });
    expect(feeds.hits('cbu') - hitsBefore).toBe(1);
    expect(item((await rates('?date=2026-11-21').expect(200)).body, 'USD')).toMatchObject({ rate: 12058.31 });

    feeds.serve('cbu', { status: 200, body: JSON.stringify({ error: 'maintenance' }), contentType: 'application/json' });
    expect((await refresh()).sources[0]).toMatchObject({ status: 'FAILED', reason: expect.stringMatching(/not a JSON array of rates/) });
    feeds.serve('cbu', fixture('cbu-2026-11-21.json'));
  });

  test('a document with malformed rows stores the good rows', async () => {
    feeds.serve('cbu', fixture('cbu-with-bad-rows.json'));
    const result = await refresh();
    expect(result.sources[0]).toEqual({ source: 'CBU', status: 'STORED', rates: 3, skippedRows: 8, changed: 0 });
    feeds.serve('cbu', fixture('cbu-2026-11-21.json'));
  });

  test('five concurrent POST /rates/refresh coalesce into one run', async () => {
    const before = (await schedule().describe()).info;
    const hitsBefore = feeds.hits('cbu');
    const release = feeds.hold();
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => api(stack).post('/api/v1/rates/refresh').set(...bearer(owner.accessToken))));
      expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
      // Each 202 means the Schedule has the request in its history. The run the first one started cannot
      // finish before the banks answer, so the Schedule sees the other four while it is running: skipped.
      await until(async () => ((await schedule().describe()).info.runningActions.length === 1 ? true : null), 30_000, 'the run to start');
    } finally {
      release();
    }
    const after = await settled(before.numActionsTaken + 1);
    expect(after.info.numActionsTaken - before.numActionsTaken).toBe(1);
    expect(feeds.hits('cbu') - hitsBefore).toBe(1);
    const events = await stack.admin.query<{ n: string }>(
      "SELECT count(*) AS n FROM audit_events WHERE tenant_id = :tenantId AND action = 'rates.refresh.requested'",
      { replacements: { tenantId: owner.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(Number(events[0]!.n)).toBeGreaterThanOrEqual(5);
  });

  test('permissions: every role reads; only ADMIN refreshes', async () => {
    await rates('', accountantToken).expect(200);
    const refused = await api(stack).post('/api/v1/rates/refresh').set(...bearer(accountantToken)).expect(403);
    expect(refused.body.type).toMatch(/\/problems\/permission-denied$/);
    await api(stack).get('/api/v1/rates').expect(401);
  });

  test.each([
    ['?source=ECB', '/query/source'],
    ['?source=cbu', '/query/source'],
    ['?date=2026-02-30', '/query/date'],
    ['?date=23.11.2026', '/query/date'],
    ['?date=', '/query/date'],
    ['?currency=USD', '/query/currency'],
  ])('GET /rates%s is a 400 problem naming %s', async (query, pointer) => {
    const res = await rates(query).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(res.body.errors)).toContain(pointer);
  });
});
