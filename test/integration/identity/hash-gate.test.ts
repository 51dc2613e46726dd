import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { createApp } from '../../../api/app';
import { createHashGate } from '../../../core/hash-gate';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';

// Password hashes run through a gate of fixed width; a hash that cannot start within the wait is refused
// with 503 server-busy and Retry-After, and the request changes nothing. The test holds the gate's only
// slot itself, so the refusal does not depend on timing.
let stack: TestStack;
let user: Registered;
const gate = createHashGate({ concurrency: 1, maxWaitMs: 0 });
let gated: ReturnType<typeof createApp>;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
  gated = anotherApp(stack, { hashGate: gate });
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
    const metrics = await request(gated).get('/metrics').expect(200);
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
});
