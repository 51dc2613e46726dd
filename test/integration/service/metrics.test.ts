import request from 'supertest';
import { metricsApp } from '../../../api/http/metrics';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { startWorkerProcess, until } from '../../helpers/worker-process';

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

/** What the metrics listener (its own port, see server.test.ts) serves for this stack's app. */
const metrics = async () => {
  const res = await request(metricsApp(stack.metrics)).get('/metrics').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
};
/** The value of one sample line, e.g. counter{label="x"} 3. */
const sample = (text: string, prefix: string): number | null => {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
};

describe('GET /metrics on the metrics listener (Prometheus)', () => {
  test('request durations by operation id and status count what was served', async () => {
    const before = sample(await metrics(), 'http_request_duration_seconds_count{operation="getCurrentUser",method="GET",status="200"}') ?? 0;
    for (let i = 0; i < 3; i++) await api(stack).get('/api/v1/me').set(...bearer(user.accessToken)).expect(200);
    await api(stack).get('/api/v1/me').expect(401);
    await api(stack).get('/api/v1/no-such-thing').expect(404);
    const text = await metrics();
    expect(sample(text, 'http_request_duration_seconds_count{operation="getCurrentUser",method="GET",status="200"}')).toBe(before + 3);
    expect(sample(text, 'http_request_duration_seconds_count{operation="getCurrentUser",method="GET",status="401"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_request_duration_seconds_count{operation="none",method="GET",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="0\.005",operation="getCurrentUser",method="GET",status="200"\} \d+$/m);
  });

  test('workflow starts by type and outcome, the pool, the event loop; no tenant, path or address in any label', async () => {
    const text = await metrics();
    // The registration above started its requestMagicLink and register workflows.
    expect(sample(text, 'workflow_start_duration_seconds_count{workflow_type="requestMagicLinkWorkflow",outcome="STARTED"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'workflow_start_duration_seconds_count{workflow_type="registerWorkflow",outcome="STARTED"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_connections ')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_waiting_requests ')).toBe(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds ')).toBeGreaterThan(0);
    for (const identifying of [user.me.tenantId, user.me.membershipId, user.email, user.me.company.slug]) expect(text).not.toContain(identifying);
  });

  test("the configuration a request's cost depends on, as labels of api_configuration_info (what a benchmark prints first)", async () => {
    const text = await metrics();
    // The test stack runs with its own settings: they are what the labels say.
    const { config } = stack;
    expect(text).toContain(
      `api_configuration_info{node_env="test",validate_responses="${String(config.validateResponses)}",log_level="${config.logLevel}",log_format="${config.logFormat}"} 1`,
    );
  });

  test('rate-limit rejections by action', async () => {
    const counted = (text: string) => ['login', 'credentials'].map((action) => sample(text, `rate_limit_rejections_total{action="${action}"}`) ?? 0);
    const [loginBefore, credentialsBefore] = counted(await metrics());
    // Ten failed logins in a row from one address for one email: the next one blocks the pair, and from
    // then on every login is refused before any password is checked (counted as "credentials").
    let refused = 0;
    for (let i = 0; i < 32; i++) {
      const res = await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: 'not the password at all' });
      if (res.status === 429) refused++;
    }
    expect(refused).toBeGreaterThanOrEqual(1);
    const [loginAfter, credentialsAfter] = counted(await metrics());
    expect(loginAfter! - loginBefore! + (credentialsAfter! - credentialsBefore!)).toBe(refused);
    expect(credentialsAfter! - credentialsBefore!).toBeGreaterThanOrEqual(1);
  });

  test('when /metrics is asked on the API\'s port, then it is the usual 404 problem on every host', async () => {
    for (const host of [stack.config.baseDomain, `${user.me.company.slug}.${stack.config.baseDomain}`, `callbacks.${stack.config.baseDomain}`]) {
      const res = await api(stack).get('/metrics').set('Host', host).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.type).toBe('/problems/not-found');
      expect(res.text).not.toContain('http_request_duration_seconds');
    }
  });

  test('when anything but GET /metrics is asked on the metrics listener, then it is 404 and shows no metric', async () => {
    for (const path of ['/', '/metrics/', '/Metrics', '/api/v1', '/healthz']) {
      const res = await request(metricsApp(stack.metrics)).get(path).expect(404);
      expect(res.text).not.toContain('http_request_duration_seconds');
    }
  });

  test('the worker serves the Temporal SDK\'s own metrics on its own address', async () => {
    const port = 19464 + (process.pid % 100);
    const child = startWorkerProcess(stack, { WORKER_METRICS_ADDRESS: `127.0.0.1:${port}` });
    try {
      const text = await until(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null);
        const body = res?.ok ? await res.text() : '';
        return /temporal_/.test(body) ? body : null;
      }, 60_000, 'the worker\'s metrics', 250);
      expect(text).toMatch(/^temporal_\w+/m);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 90_000);
});
