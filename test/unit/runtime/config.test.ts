import { loadConfig } from '../../../runtime/config';

describe('configuration is validated at start-up', () => {
  test('webhook retries wait 10 s, 30 s, 2 min, … 4 h by default; WEBHOOK_RETRY_INTERVALS_MS replaces the waits', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).webhooks.retryIntervalsMs).toEqual([10000, 30000, 120000, 600000, 1800000, 3600000, 7200000, 14400000]);
    expect(loadConfig({ NODE_ENV: 'development', WEBHOOK_RETRY_INTERVALS_MS: '200, 400' }).webhooks.retryIntervalsMs).toEqual([200, 400]);
  });

  test('logs are text for a person at a terminal in development, JSON lines everywhere else; LOG_FORMAT decides when set', () => {
    const tty = { stdoutIsTty: true };
    const pipe = { stdoutIsTty: false };
    expect(loadConfig({ NODE_ENV: 'development' }, tty).logFormat).toBe('pretty');
    expect(loadConfig({ NODE_ENV: 'development' }, pipe).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'test' }, tty).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'development', LOG_FORMAT: 'json' }, tty).logFormat).toBe('json');
    expect(() => loadConfig({ NODE_ENV: 'development', LOG_FORMAT: 'yaml' }, tty)).toThrow(/LOG_FORMAT must be json or pretty/);
  });

  test('defaults: 15-minute access tokens, refresh tokens sliding within an absolute limit', () => {
    const config = loadConfig({ NODE_ENV: 'development' });
    expect(config.jwt.accessTokenTtlSeconds).toBe(900);
    expect(config.sessions.refreshIdleTtlSeconds).toBeLessThanOrEqual(config.sessions.refreshAbsoluteTtlSeconds);
  });

  test('request-rate limits are "requests/seconds"; the client IP comes from the socket unless proxies are listed', () => {
    const config = loadConfig({ NODE_ENV: 'development', RATE_LIMIT_LOGIN_PER_EMAIL: '7/60', TRUST_PROXY: 'loopback, 10.0.0.0/8' });
    expect(config.requestLimits.login).toEqual({ perIp: { points: 100, seconds: 300 }, perEmail: { points: 7, seconds: 60 } });
    expect(config.trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    expect(loadConfig({ NODE_ENV: 'development' }).trustProxy).toEqual([]);
    for (const bad of ['7', '0/60', '7/0', 'seven/60', '7/60/1']) {
      expect(() => loadConfig({ NODE_ENV: 'development', RATE_LIMIT_LOGIN_PER_EMAIL: bad })).toThrow(/RATE_LIMIT_LOGIN_PER_EMAIL must be/);
    }
  });

  test('the worker\'s task slots, cache and pollers default to the SDK\'s values and are bounded', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).temporal.worker).toEqual({
      maxConcurrentWorkflowTasks: 40,
      maxConcurrentActivities: 100,
      maxCachedWorkflows: 1000,
      workflowTaskPollers: 10,
      activityTaskPollers: 10,
    });
    const tuned = loadConfig({ NODE_ENV: 'development', WORKER_WORKFLOW_TASK_POLLERS: '4', WORKER_MAX_CONCURRENT_ACTIVITIES: '20' }).temporal.worker;
    expect(tuned).toMatchObject({ workflowTaskPollers: 4, maxConcurrentActivities: 20 });
    // The SDK needs two workflow pollers (sticky and normal queue) and two workflow task slots.
    expect(() => loadConfig({ NODE_ENV: 'development', WORKER_WORKFLOW_TASK_POLLERS: '1' })).toThrow(/WORKER_WORKFLOW_TASK_POLLERS/);
    expect(() => loadConfig({ NODE_ENV: 'development', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1' })).toThrow(/WORKER_MAX_CONCURRENT_WORKFLOW_TASKS/);
  });

  test('the API listens on loopback unless LISTEN_HOST says otherwise; production names its address; metrics have their own port', () => {
    expect(loadConfig({ NODE_ENV: 'development' })).toMatchObject({ listenHost: '127.0.0.1', port: 3000, metricsPort: 9465 });
    expect(loadConfig({ NODE_ENV: 'test' }).listenHost).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'development', LISTEN_HOST: '0.0.0.0', METRICS_PORT: '9100' })).toMatchObject({ listenHost: '0.0.0.0', metricsPort: 9100 });
    expect(loadConfig({ NODE_ENV: 'development', LISTEN_HOST: '::' }).listenHost).toBe('::');
    expect(loadConfig({ NODE_ENV: 'development', PORT: '0', METRICS_PORT: '0' })).toMatchObject({ port: 0, metricsPort: 0 });
    const production = {
      NODE_ENV: 'production',
      SENDGRID_API_KEY: 'k',
      JWT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
      SECOND_FACTOR_SECRET_KEYS: `f1:${Buffer.alloc(32, 2).toString('base64')}`,
      PUSH_FCM_SERVICE_ACCOUNT_FILE: '/etc/accounting/fcm.json',
      MAIL_CALLBACK_TOKEN: 'a-callback-token-of-thirty-two-characters',
    };
    expect(() => loadConfig(production)).toThrow(/LISTEN_HOST is required in production/);
    expect(loadConfig({ ...production, LISTEN_HOST: '10.0.0.5' }).listenHost).toBe('10.0.0.5');
    expect(loadConfig({ ...production, LISTEN_HOST: '10.0.0.5' }, { stdoutIsTty: true }).logFormat).toBe('json');
    expect(() => loadConfig({ ...production, LISTEN_HOST: '10.0.0.5', LOG_FORMAT: 'pretty' })).toThrow(/production logs are JSON lines/);
  });

  test('production refuses to start with webhooks to loopback or over plain http; development and test may have both', () => {
    const production = {
      NODE_ENV: 'production',
      SENDGRID_API_KEY: 'k',
      JWT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
      SECOND_FACTOR_SECRET_KEYS: `f1:${Buffer.alloc(32, 2).toString('base64')}`,
      PUSH_FCM_SERVICE_ACCOUNT_FILE: '/etc/accounting/fcm.json',
      MAIL_CALLBACK_TOKEN: 'a-callback-token-of-thirty-two-characters',
      LISTEN_HOST: '10.0.0.5',
    };
    expect(loadConfig(production).webhooks).toMatchObject({ allowHttp: false, allowLoopback: false });
    expect(loadConfig({ ...production, WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_LOOPBACK: 'false' }).webhooks).toMatchObject({ allowHttp: false, allowLoopback: false });
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_LOOPBACK: 'true' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK=true is for development and tests/);
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_HTTP: 'true' })).toThrow(/WEBHOOK_ALLOW_HTTP=true is for development and tests/);
    expect(loadConfig({ NODE_ENV: 'development', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true' }).webhooks).toMatchObject({ allowHttp: true, allowLoopback: true });
    expect(loadConfig({ NODE_ENV: 'test' }).webhooks).toMatchObject({ allowHttp: true, allowLoopback: true });
  });

  test('link re-sends, webhook test events: defaults, and a re-send window at most half a link\'s lifetime', () => {
    const config = loadConfig({ NODE_ENV: 'development' });
    expect(config.linkResends).toEqual({ windowSeconds: 600, perEmailPerHour: 30 });
    expect(config.webhooks).toMatchObject({ testEventsPerEndpoint: { points: 1, seconds: 10 }, maxPendingDeliveries: 100 });
    expect(loadConfig({ NODE_ENV: 'development', MAGIC_LINK_RESEND_WINDOW_SECONDS: '0' }).linkResends.windowSeconds).toBe(0);
    expect(() => loadConfig({ NODE_ENV: 'development', MAGIC_LINK_RESEND_WINDOW_SECONDS: '901' })).toThrow(/MAGIC_LINK_RESEND_WINDOW_SECONDS must be at most half/);
    expect(() => loadConfig({ NODE_ENV: 'development', PASSWORD_RESET_TTL_SECONDS: '600' })).toThrow(/MAGIC_LINK_RESEND_WINDOW_SECONDS must be at most half/);
    expect(() => loadConfig({ NODE_ENV: 'development', RATE_LIMIT_WEBHOOK_TEST_PER_ENDPOINT: '1' })).toThrow(/RATE_LIMIT_WEBHOOK_TEST_PER_ENDPOINT must be/);
  });

  test('"development defaults must be opt-in": without NODE_ENV the process refuses to start, saying why', () => {
    expect(() => loadConfig({})).toThrow(/NODE_ENV is not set/);
    expect(() => loadConfig({ JWT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` })).toThrow(/NODE_ENV is not set/);
  });

  test.each([
    [{ NODE_ENV: 'development', PORT: 'abc' }, /PORT/],
    [{ NODE_ENV: 'development', LISTEN_HOST: 'example.com' }, /LISTEN_HOST must be an IP address/],
    [{ NODE_ENV: 'development', LISTEN_HOST: '127.0.0.1:3000' }, /LISTEN_HOST must be an IP address/],
    [{ NODE_ENV: 'development', METRICS_PORT: '70000' }, /METRICS_PORT must be between 0 and 65535/],
    [{ NODE_ENV: 'development', PORT: '9000', METRICS_PORT: '9000' }, /METRICS_PORT must differ from PORT/],
    [{ NODE_ENV: 'development', ACCESS_TOKEN_TTL_SECONDS: '5' }, /ACCESS_TOKEN_TTL_SECONDS/],
    [{ NODE_ENV: 'production', SENDGRID_API_KEY: 'k' }, /JWT_KEYS/],
    [{ NODE_ENV: 'production', JWT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` }, /SENDGRID_API_KEY/],
    [
      {
        NODE_ENV: 'production',
        SENDGRID_API_KEY: 'k',
        JWT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
        SECOND_FACTOR_SECRET_KEYS: `f1:${Buffer.alloc(32, 2).toString('base64')}`,
      },
      /PUSH_FCM_SERVICE_ACCOUNT_FILE is required in production/,
    ],
    [
      {
        NODE_ENV: 'production',
        SENDGRID_API_KEY: 'k',
        JWT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
        SECOND_FACTOR_SECRET_KEYS: `f1:${Buffer.alloc(32, 2).toString('base64')}`,
        PUSH_FCM_SERVICE_ACCOUNT_FILE: '/etc/accounting/fcm.json',
        MAIL_CALLBACK_TOKEN: 'too-short',
      },
      /MAIL_CALLBACK_TOKEN \(at least 32 characters\) is required in production/,
    ],
    [{ NODE_ENV: 'development', SENDGRID_API_URL: 'api.sendgrid.com' }, /SENDGRID_API_URL must be an http\(s\) URL/],
    [{ NODE_ENV: 'development', TEMPORAL_TLS_CERT_FILE: '/etc/temporal/client.pem' }, /TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together/],
    [{ NODE_ENV: 'development', TEMPORAL_TLS: 'yes' }, /TEMPORAL_TLS must be true or false/],
    [{ NODE_ENV: 'development', TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }, /TEMPORAL_TLS=false cannot be used/],
    [{ NODE_ENV: 'development', HOUSEKEEPING_SCHEDULE_ID: 'house keeping' }, /HOUSEKEEPING_SCHEDULE_ID must be/],
    [{ NODE_ENV: 'development', RATES_CBU_URL: 'ftp://cbu.uz/rates.json' }, /RATES_CBU_URL must be an http\(s\) URL/],
    [{ NODE_ENV: 'development', RATES_BANK_URL: 'not a url' }, /RATES_BANK_URL must be an http\(s\) URL/],
    [{ NODE_ENV: 'development', RATES_REFRESH_INTERVAL_SECONDS: '30' }, /RATES_REFRESH_INTERVAL_SECONDS must be between 60 and 604800/],
    [{ NODE_ENV: 'development', RATES_SCHEDULE_ID: 'rates refresh' }, /RATES_SCHEDULE_ID must be/],
    [{ NODE_ENV: 'development', JWT_KEYS: 'k1:c2hvcnQ=' }, /at least 32 bytes/],
    [{ NODE_ENV: 'development', REFRESH_TOKEN_IDLE_TTL_SECONDS: '7200', REFRESH_TOKEN_ABSOLUTE_TTL_SECONDS: '3600' }, /cannot exceed/],
    [{ NODE_ENV: 'development', WEBHOOK_RETRY_INTERVALS_MS: '10000,,30000' }, /WEBHOOK_RETRY_INTERVALS_MS must be up to 50 comma-separated waits/],
    [{ NODE_ENV: 'development', WEBHOOK_RETRY_INTERVALS_MS: '0' }, /WEBHOOK_RETRY_INTERVALS_MS must be/],
  ])('%o is refused', (env, message) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(message);
  });
});
