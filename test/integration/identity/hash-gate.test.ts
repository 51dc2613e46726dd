import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { createApp } from '../../../api/app';
import { createApiMetrics, metricsApp, type ApiMetrics } from '../../../api/http/metrics';
import { createHashGate } from '../../../core/identity/hash-gate';
import { createPasswordHasher } from '../../../core/identity/passwords';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';

// Password hashes run through a gate of fixed width; a hash that cannot start within the wait is refused
// with 503 server-busy and Retry-After, and the request changes nothing. The test holds the gate's only
// slot itself, so the refusal does not depend on timing.
let stack: TestStack;
let user: Registered;
const gate = createHashGate({ concurrency: 1, maxWaitMs: 0 });
let gated: ReturnType<typeof createApp>;
let gatedMetrics: ApiMetrics;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
  gatedMetrics = createApiMetrics(stack.db);
  gated = anotherApp(stack, { hashGate: gate, metrics: gatedMetrics });
});
afterAll(async () => {
  await stack.stop();
});

/** Holds the gate's one slot until the returned function is called. */
async function occupy(): Promise<() => Promise<void>> {
  let release!: () => void;
  const held = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
  await new Promise((resolve) => setImmediate(resolve));
  expect(gate.running).toBe(1);
  return async () => {
    release();
    await held;
  };
}

const sessionsOf = async (tenantId: string) =>
  Number(
    (
      await stack.admin.query<{ n: string }>('SELECT count(*) AS n FROM sessions WHERE tenant_id = :tenantId', {
        replacements: { tenantId },
        type: QueryTypes.SELECT,
      })
    )[0]!.n,
  );

describe('bounded password hashing', () => {
  test('a login whose hash cannot start in time is 503 server-busy with Retry-After, creates no session, and counts in /metrics', async () => {
    const host = `${user.me.company.slug}.${stack.config.baseDomain}`;
    const before = await sessionsOf(user.me.tenantId);
    const release = await occupy();
    try {
      const res = await request(gated).post('/api/v1/auth/login').set('Host', host).send({ email: user.email, password: user.password });
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.type).toBe('/problems/server-busy');
      expect(res.headers['retry-after']).toBe('1');
      expect(JSON.stringify(res.body)).not.toContain(user.password);
      expect(await sessionsOf(user.me.tenantId)).toBe(before);
    } finally {
      await release();
    }
    const metrics = await request(metricsApp(gatedMetrics)).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^password_hash_refusals_total 1$/m);
    expect(metrics.text).toMatch(/^password_hashes_running 0$/m);

    // With the slot free the same login succeeds.
    await request(gated).post('/api/v1/auth/login').set('Host', host).send({ email: user.email, password: user.password }).expect(200);
    expect(await sessionsOf(user.me.tenantId)).toBe(before + 1);
  });

  test('a password change whose hash cannot start is 503 and the old password still works', async () => {
    const host = `${user.me.company.slug}.${stack.config.baseDomain}`;
    const login = await request(gated).post('/api/v1/auth/login').set('Host', host).send({ email: user.email, password: user.password }).expect(200);
    const release = await occupy();
    try {
      const res = await request(gated)
        .put('/api/v1/me/password')
        .set('Authorization', `Bearer ${login.body.accessToken}`)
        .send({ currentPassword: user.password, newPassword: 'a brand new password for this test', confirmPassword: 'a brand new password for this test' });
      expect(res.status).toBe(503);
      expect(res.body.type).toBe('/problems/server-busy');
    } finally {
      await release();
    }
    await request(gated).post('/api/v1/auth/login').set('Host', host).send({ email: user.email, password: user.password }).expect(200);
  });

  test('when thirty wrong logins arrive at once from one address, then that address holds at most its share and a real login from elsewhere is served', async () => {
    // Unknown emails are checked against a dummy hash at the configured cost (64 MiB and four passes here: a
    // fraction of a second each), so thirty in line would take far longer than the two seconds a hash may wait.
    const shared = createHashGate({ concurrency: 1, maxWaitMs: 2000, perClient: 2 });
    const config = { ...stack.config, trustProxy: ['loopback'], passwords: { ...stack.config.passwords, argon2MemoryKib: 65536, argon2TimeCost: 4 } };
    const app = anotherApp(stack, { config, hashGate: shared, hasher: createPasswordHasher({ memoryKib: 65536, timeCost: 4 }, shared) });
    const flood = Array.from({ length: 30 }, (_, i) =>
      request(app).post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.200').send({ email: `nobody-${i}@example.com`, password: 'a wrong password here' }),
    );
    let settled = 0;
    const started = flood.map((r) => r.then((res) => ((settled += 1), res)));
    // Every flood request has been answered or holds a place at the gate before the real login comes.
    for (const deadline = Date.now() + 20_000; settled + shared.running + shared.waiting < 30; ) {
      if (Date.now() > deadline) throw new Error('the flood did not reach the gate');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const real = await request(app).post('/api/v1/auth/login').set('X-Forwarded-For', '203.0.113.200').send({ email: user.email, password: user.password });
    expect(real.status).toBe(200);
    const answers = await Promise.all(started);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(26);
    for (const a of answers.filter((x) => x.status === 429)) expect(a.body.type).toBe('/problems/too-many-requests');
  });
});
