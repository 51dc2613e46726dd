// Configuration is read once at start-up, validated, and passed down; nothing reads process.env later.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import type { AccessTokenSettings, JwtKey } from '../core/identity/access-tokens';
import type { FactorKey } from '../core/identity/factor-secrets';
import { DEFAULT_RETRY_INTERVALS_MS } from '../core/webhooks/webhooks';

export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  /** The address the API and its metrics listener bind (LISTEN_HOST): loopback outside production. */
  listenHost: string;
  /** The port of the API's metrics listener (Prometheus text at /metrics) on listenHost; 0: any free port. */
  metricsPort: number;
  baseDomain: string;
  /** Where links in mail point to (the front end or this API). */
  publicUrl: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** JSON lines (log collectors) or pino-pretty's text (a person at a terminal): LOG_FORMAT, by default pretty only in development on a TTY. */
  logFormat: 'json' | 'pretty';
  database: {
    url: string; // application role: owns nothing, subject to row-level security
    ownerUrl: string; // owner role: runs migrations
    adminUrl: string | null; // superuser, only for creating roles and the database
    definerRole: string; // NOLOGIN BYPASSRLS owner of the cross-tenant SECURITY DEFINER look-ups
    poolMax: number;
  };
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    workflowResponseTimeoutMs: number;
    /** How often each worker's relay starts the recorded workflow starts that are due. */
    startRelayIntervalMs: number;
    /** A prebuilt workflow bundle for the worker; without one it bundles workflows/ at start. */
    workflowBundlePath: string | null;
    /** TLS to the Temporal frontend (a managed cluster or Temporal Cloud); null: plain gRPC (local servers). */
    tls: { caFile: string | null; certFile: string | null; keyFile: string | null; serverName: string | null } | null;
    /** A Temporal Cloud API key (sent as a bearer token; implies TLS). */
    apiKey: string | null;
    /** Where the worker serves the Temporal SDK's Prometheus metrics (host:port); null: not served. */
    workerMetricsAddress: string | null;
    /** The worker's task slots, pollers and cache (docs/operations.md, "Worker tuning"). */
    worker: {
      maxConcurrentWorkflowTasks: number;
      maxConcurrentActivities: number;
      maxCachedWorkflows: number;
      workflowTaskPollers: number;
      activityTaskPollers: number;
    };
  };
  jwt: AccessTokenSettings;
  sessions: {
    refreshIdleTtlSeconds: number; // sliding: each refresh extends up to this
    refreshAbsoluteTtlSeconds: number; // hard cap from the session's start
  };
  /** Registration by an emailed magic link: its lifetime, and how many links one address gets per hour. */
  registration: {
    magicLinkTtlSeconds: number;
    magicLinksPerEmailPerHour: number;
  };
  /** Password reset by an emailed link: its lifetime, and how many links one address gets per hour. */
  passwordReset: {
    ttlSeconds: number;
    perEmailPerHour: number;
  };
  /**
   * A link request (registration or reset) within `windowSeconds` of the address's live link's mail re-sends
   * that link (a new token for it) instead of issuing another; at most `perEmailPerHour` re-sends per address
   * and purpose. Re-sends are not among the hourly links above. 0 seconds: every request issues a new link.
   */
  linkResends: {
    windowSeconds: number;
    perEmailPerHour: number;
  };
  passwords: {
    /** Argon2id's memory (KiB) and passes for new password hashes (OWASP: 19 MiB, 2). */
    argon2MemoryKib: number;
    argon2TimeCost: number;
    /** Hashes that run at once (the rest queue): one core is left for requests and the database. */
    hashConcurrency: number;
    /** How long a hash may wait for its turn before the request is answered 503 with Retry-After. */
    hashMaxWaitMs: number;
    /** Hashes one client address may have running and waiting at once (the next is 429). */
    hashPerClient: number;
  };
  /** Exports (CSV, XLSX, an hledger journal): how many run at once, and the threads that build XLSX workbooks. */
  exports: {
    /** Exports one workspace may have running in this process at once (its next is 429 too-many-requests). */
    perWorkspace: number;
    /** Exports this process runs at once, every workspace's together (the next is 503 server-busy). */
    perProcess: number;
    /** Worker threads that build the process's XLSX workbooks off the event loop (their exports share them). */
    xlsxThreads: number;
  };
  secondFactors: {
    /** Root keys for second-factor secrets (TOTP secrets at rest, emailed codes, their MACs); the first seals. */
    secretKeys: FactorKey[];
    issuer: string; // shown in authenticator apps
    emailCodeTtlSeconds: number;
    totpEnrollmentTtlSeconds: number;
    attemptsPerWindow: number;
    attemptWindowSeconds: number;
    /** How long a confirmed second factor lets the session change its password and factors. */
    stepUpTtlSeconds: number;
    recoveryCodeScryptLogN: number;
  };
  mail: {
    sendgridApiKey: string | null;
    /** SendGrid's API origin (a local fake in tests). */
    sendgridApiUrl: string;
    sendgridTimeoutMs: number;
    from: string;
    /** The shared token the provider's event webhook sends in `X-Auth` on the callback host. */
    callbackToken: string;
    /** DNS servers for email validation ("host" or "host:port"); empty = the system's. */
    dnsServers: string[];
    dnsTimeoutMs: number;
  };
  validateResponses: boolean;
  housekeeping: {
    scheduleId: string;
    intervalSeconds: number;
    batchSize: number;
    maxBatches: number;
  };
  webhooks: {
    /** Receivers may be plain http (development and tests only by default; production needs https). */
    allowHttp: boolean;
    /** Receivers may be on loopback (127.0.0.0/8, ::1): development and tests only by default; never private ranges. */
    allowLoopback: boolean;
    /** Attempts to one endpoint in flight at once, so a slow receiver holds at most this many activity slots. */
    endpointConcurrency: number;
    /** One attempt's whole deadline (connect, send, answer). */
    attemptTimeoutMs: number;
    /** How long a delivery is retried after its first attempt before it is FAILED. */
    retryHours: number;
    /** The waits after failed attempts 1, 2, 3, …; the last one repeats until the retry window ends. */
    retryIntervalsMs: number[];
    /** An endpoint failing this long without a success is disabled and its ADMINs mailed. */
    disableAfterDays: number;
    /** Test events one endpoint may be sent (sendWebhookTestEvent), counted in PostgreSQL; the next is 429. */
    testEventsPerEndpoint: RateWindow;
    /** Undelivered (PENDING) deliveries an endpoint may have before a test event is refused (409). */
    maxPendingDeliveries: number;
  };
  push: {
    /** A Firebase service-account key file (FCM HTTP v1); without one the development adapter records pushes. */
    fcmServiceAccountFile: string | null;
    fcmEndpoint: string;
    timeoutMs: number;
  };
  rates: {
    /** The Temporal Schedule that refreshes the rates; created (or updated) by every worker at start. */
    scheduleId: string;
    refreshIntervalSeconds: number;
    centralBankUrl: string;
    commercialBankUrl: string;
    /** One HTTP request's deadline; each source's activity retries on its own profile. */
    fetchTimeoutMs: number;
  };
  /**
   * Express 'trust proxy': the proxies (addresses, CIDRs or loopback/linklocal/uniquelocal) whose
   * X-Forwarded-For is believed. Empty (the default): the client IP is the socket's peer.
   */
  trustProxy: string[];
  /** Request-rate limits of the public operations, per client IP and per target, shared in PostgreSQL. */
  requestLimits: Record<LimitedAction, { perIp: RateWindow; perEmail: RateWindow }>;
  /**
   * Failed credential checks (wrong password, bad magic link or reset link): consecutive failures per email from
   * one client IP block that pair for `blockSeconds`; failures per client IP per day block the IP for a day.
   */
  credentialFailures: { perEmailAndIp: number; blockSeconds: number; perIpPerDay: number };
}

type Env = Record<string, string | undefined>;

class ConfigError extends Error {}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}

/** The operations limited per client IP and per target email (request-rate limits). */
export type LimitedAction = 'login' | 'register' | 'magicLink' | 'passwordReset' | 'emailChallenge' | 'invitationAccept' | 'emailValidation';

/** At most `points` requests in `seconds`. */
export interface RateWindow {
  points: number;
  seconds: number;
}

/** "points/seconds", e.g. "30/300": thirty requests per five minutes. */
function rate(env: Env, name: string, fallback: string): RateWindow {
  const raw = str(env, name, fallback);
  const match = /^([0-9]+)\/([0-9]+)$/.exec(raw);
  const points = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || points < 1 || points > 1_000_000 || seconds < 1 || seconds > 86_400) {
    throw new ConfigError(`${name} must be "requests/seconds" (1..1000000 / 1..86400), got "${raw}"`);
  }
  return { points, seconds };
}

/** Comma-separated waits in milliseconds, e.g. "10000,30000" (empty: the fallback). */
function intervals(env: Env, name: string, fallback: readonly number[]): number[] {
  const raw = str(env, name, fallback.join(','));
  const values = raw.split(',').map((part) => part.trim());
  if (values.length > 50 || values.some((v) => !/^[0-9]+$/.test(v) || Number(v) < 1 || Number(v) > 86_400_000)) {
    throw new ConfigError(`${name} must be up to 50 comma-separated waits of 1..86400000 milliseconds, got "${raw}"`);
  }
  return values.map(Number);
}

/** "true" or "false" (empty: the fallback). */
function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name, String(fallback));
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

function str(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

/** An http(s) URL (a rate source: a bank's feed, or a local file server for offline work). */
function url(env: Env, name: string, fallback: string): string {
  const raw = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return parsed.toString();
}

const DEV_JWT_SECRET = 'development-only-signing-key-never-used-in-production-0123456789';

const DEV_FACTOR_SECRET = 'development-only-second-factor-key-never-used-in-production-0123';

/**
 * SECOND_FACTOR_SECRET_KEYS="kid2:base64,kid1:base64": the first seals, all open (rotation). A single
 * SECOND_FACTOR_SECRET_KEY is the one key "k1".
 */
function secondFactorKeys(env: Env, production: boolean): FactorKey[] {
  const list = env.SECOND_FACTOR_SECRET_KEYS;
  const single = env.SECOND_FACTOR_SECRET_KEY;
  if (!list && !single) {
    if (production) throw new ConfigError('SECOND_FACTOR_SECRET_KEYS (or SECOND_FACTOR_SECRET_KEY) is required in production');
    return [{ kid: 'dev-1', key: Buffer.from(DEV_FACTOR_SECRET) }];
  }
  const pairs = list ? list.split(',').map((pair) => pair.trim().split(':')) : [['k1', single!]];
  const keys = pairs.map(([kid, raw]) => {
    if (!kid || !/^[A-Za-z0-9_-]{1,32}$/.test(kid) || !raw) throw new ConfigError('SECOND_FACTOR_SECRET_KEYS must be "kid:base64key,..."');
    const key = Buffer.from(raw, 'base64');
    if (key.length < 32) throw new ConfigError(`second-factor key "${kid}" must be at least 32 bytes (base64)`);
    return { kid, key };
  });
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) throw new ConfigError('SECOND_FACTOR_SECRET_KEYS repeats a key id');
  return keys;
}

function jwtKeys(env: Env, production: boolean): JwtKey[] {
  // JWT_KEYS="kid1:base64secret,kid0:base64secret" — first signs, all verify.
  const raw = env.JWT_KEYS;
  if (!raw) {
    if (production) throw new ConfigError('JWT_KEYS is required in production');
    return [{ kid: 'dev-1', secret: Buffer.from(DEV_JWT_SECRET) }];
  }
  return raw.split(',').map((pair) => {
    const [kid, secret] = pair.split(':');
    if (!kid || !secret) throw new ConfigError('JWT_KEYS entries must look like kid:base64secret');
    const bytes = Buffer.from(secret, 'base64');
    if (bytes.length < 32) throw new ConfigError(`JWT key ${kid} must be at least 32 bytes`);
    return { kid, secret: bytes };
  });
}

/**
 * LISTEN_HOST: an IP address to bind. Outside production the default is loopback, so the development mail
 * outbox and the metrics are not reachable from the network; production has no default ('' here, refused
 * after the other production settings).
 */
function listenHost(env: Env, production: boolean): string {
  const raw = env.LISTEN_HOST ?? '';
  if (raw === '') return production ? '' : '127.0.0.1';
  if (isIP(raw) === 0) throw new ConfigError(`LISTEN_HOST must be an IP address (e.g. 127.0.0.1, 0.0.0.0 or ::), got "${raw}"`);
  return raw;
}

export function databaseName(url: string): string {
  return new URL(url).pathname.replace(/^\//, '');
}

/** TLS settings of the Temporal connection: on with TEMPORAL_TLS=true, a client certificate or an API key. */
function temporalTls(env: Env): Config['temporal']['tls'] {
  const certFile = env.TEMPORAL_TLS_CERT_FILE || null;
  const keyFile = env.TEMPORAL_TLS_KEY_FILE || null;
  if ((certFile === null) !== (keyFile === null)) throw new ConfigError('TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together (mTLS)');
  const flag = str(env, 'TEMPORAL_TLS', '');
  if (flag !== '' && flag !== 'true' && flag !== 'false') throw new ConfigError('TEMPORAL_TLS must be true or false');
  const on = flag === 'true' || (flag === '' && (certFile !== null || Boolean(env.TEMPORAL_API_KEY)));
  if (flag === 'false' && (certFile !== null || env.TEMPORAL_API_KEY)) throw new ConfigError('TEMPORAL_TLS=false cannot be used with a client certificate or an API key');
  if (!on) return null;
  return { caFile: env.TEMPORAL_TLS_CA_FILE || null, certFile, keyFile, serverName: env.TEMPORAL_TLS_SERVER_NAME || null };
}

export function loadConfig(env: Env = process.env, terminal: { stdoutIsTty: boolean } = { stdoutIsTty: process.stdout.isTTY === true }): Config {
  // No default: the development keys and the readable mail outbox are opt-in (npm start sets development),
  // so a process started without NODE_ENV refuses to start instead of running with public keys.
  const nodeEnv = env.NODE_ENV ?? '';
  if (nodeEnv === '') {
    throw new ConfigError(
      'NODE_ENV is not set: use production (with JWT_KEYS, SECOND_FACTOR_SECRET_KEYS, SENDGRID_API_KEY, PUSH_FCM_SERVICE_ACCOUNT_FILE and LISTEN_HOST), ' +
        'or development / test for the built-in development keys and mail outbox',
    );
  }
  if (!['development', 'test', 'production'].includes(nodeEnv)) {
    throw new ConfigError(`NODE_ENV must be development, test or production, got "${nodeEnv}"`);
  }
  const production = nodeEnv === 'production';
  const dbName = str(env, 'DATABASE_NAME', nodeEnv === 'test' ? 'accounting_test' : 'accounting');
  const pgHost = str(env, 'PGHOST_ADDR', '127.0.0.1:5432');
  const sendgridApiKey = env.SENDGRID_API_KEY || null;
  if (production && !sendgridApiKey) throw new ConfigError('SENDGRID_API_KEY is required in production');
  const callbackToken = str(env, 'MAIL_CALLBACK_TOKEN', production ? '' : 'development-callback-token');

  const config: Config = {
    env: nodeEnv as Config['env'],
    port: int(env, 'PORT', 3000, 0, 65535),
    listenHost: listenHost(env, production),
    metricsPort: int(env, 'METRICS_PORT', 9465, 0, 65535),
    baseDomain: str(env, 'BASE_DOMAIN', 'localhost').toLowerCase(),
    publicUrl: str(env, 'PUBLIC_URL', `http://localhost:${int(env, 'PORT', 3000, 0, 65535)}`),
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'warn' : 'info') as Config['logLevel'],
    logFormat: str(env, 'LOG_FORMAT', nodeEnv === 'development' && terminal.stdoutIsTty ? 'pretty' : 'json') as Config['logFormat'],
    database: {
      url: str(env, 'DATABASE_URL', `postgres://accounting_app:accounting_app@${pgHost}/${dbName}`),
      ownerUrl: str(env, 'DATABASE_OWNER_URL', `postgres://accounting_owner:accounting_owner@${pgHost}/${dbName}`),
      adminUrl: env.DATABASE_ADMIN_URL ?? (env.DATABASE_URL ? null : `postgres://postgres@${pgHost}/postgres`),
      definerRole: str(env, 'DATABASE_DEFINER_ROLE', 'accounting_definer'),
      poolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 200),
    },
    temporal: {
      address: str(env, 'TEMPORAL_ADDRESS', '127.0.0.1:7233'),
      namespace: str(env, 'TEMPORAL_NAMESPACE', 'default'),
      taskQueue: str(env, 'TEMPORAL_TASK_QUEUE', 'accounting'),
      workflowResponseTimeoutMs: int(env, 'WORKFLOW_RESPONSE_TIMEOUT_MS', 20000, 100, 600000),
      startRelayIntervalMs: int(env, 'WORKFLOW_START_RELAY_INTERVAL_MS', 2000, 50, 600000),
      workflowBundlePath: env.WORKFLOW_BUNDLE_PATH || null,
      tls: temporalTls(env),
      apiKey: env.TEMPORAL_API_KEY || null,
      workerMetricsAddress: env.WORKER_METRICS_ADDRESS === undefined ? '127.0.0.1:9464' : env.WORKER_METRICS_ADDRESS || null,
      worker: {
        maxConcurrentWorkflowTasks: int(env, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', 40, 2, 10000),
        maxConcurrentActivities: int(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES', 100, 1, 10000),
        maxCachedWorkflows: int(env, 'WORKER_MAX_CACHED_WORKFLOWS', 1000, 2, 1000000),
        workflowTaskPollers: int(env, 'WORKER_WORKFLOW_TASK_POLLERS', 10, 2, 1000),
        activityTaskPollers: int(env, 'WORKER_ACTIVITY_TASK_POLLERS', 10, 1, 1000),
      },
    },
    jwt: {
      issuer: str(env, 'JWT_ISSUER', 'accounting-backend'),
      audience: str(env, 'JWT_AUDIENCE', 'accounting-api'),
      keys: jwtKeys(env, production),
      accessTokenTtlSeconds: int(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, 30, 86400),
    },
    sessions: {
      refreshIdleTtlSeconds: int(env, 'REFRESH_TOKEN_IDLE_TTL_SECONDS', 14 * 86400, 60, 365 * 86400),
      refreshAbsoluteTtlSeconds: int(env, 'REFRESH_TOKEN_ABSOLUTE_TTL_SECONDS', 30 * 86400, 60, 365 * 86400),
    },
    registration: {
      magicLinkTtlSeconds: int(env, 'REGISTRATION_PROOF_TTL_SECONDS', 1800, 60, 86400),
      magicLinksPerEmailPerHour: int(env, 'REGISTRATION_PROOFS_PER_EMAIL_PER_HOUR', 20, 1, 1000),
    },
    passwordReset: {
      ttlSeconds: int(env, 'PASSWORD_RESET_TTL_SECONDS', 1800, 60, 86400),
      perEmailPerHour: int(env, 'PASSWORD_RESETS_PER_EMAIL_PER_HOUR', 20, 1, 1000),
    },
    linkResends: {
      windowSeconds: int(env, 'MAGIC_LINK_RESEND_WINDOW_SECONDS', 600, 0, 3600),
      perEmailPerHour: int(env, 'MAGIC_LINK_RESENDS_PER_EMAIL_PER_HOUR', 30, 0, 1000),
    },
    passwords: {
      // OWASP's Argon2id configuration m = 19 MiB, t = 2, p = 1; tests lower it to stay fast.
      argon2MemoryKib: int(env, 'PASSWORD_ARGON2_MEMORY_KIB', 19 * 1024, 1024, 4 * 1024 * 1024),
      argon2TimeCost: int(env, 'PASSWORD_ARGON2_TIME_COST', 2, 1, 10),
      hashConcurrency: int(env, 'PASSWORD_HASH_CONCURRENCY', Math.max(1, availableParallelism() - 1), 1, 256),
      hashMaxWaitMs: int(env, 'PASSWORD_HASH_MAX_WAIT_MS', 3000, 0, 60000),
      hashPerClient: int(env, 'PASSWORD_HASH_PER_CLIENT', 2, 1, 1000),
    },
    exports: {
      perWorkspace: int(env, 'EXPORTS_PER_WORKSPACE', 2, 1, 1000),
      perProcess: int(env, 'EXPORTS_PER_PROCESS', 4, 1, 1000),
      // Half the cores (at least one): the other half keeps serving requests, password hashes and PostgreSQL.
      xlsxThreads: int(env, 'EXPORT_XLSX_THREADS', Math.max(1, Math.floor(availableParallelism() / 2)), 1, 64),
    },
    secondFactors: {
      secretKeys: secondFactorKeys(env, production),
      issuer: str(env, 'TOTP_ISSUER', 'Accounting'),
      // The interface fixes five minutes and five attempts; the TTL is settable only so tests need not wait.
      emailCodeTtlSeconds: int(env, 'EMAIL_CODE_TTL_SECONDS', 300, 1, 3600),
      totpEnrollmentTtlSeconds: int(env, 'TOTP_ENROLLMENT_TTL_SECONDS', 600, 60, 3600),
      attemptsPerWindow: 5,
      attemptWindowSeconds: 300,
      stepUpTtlSeconds: int(env, 'STEP_UP_TTL_SECONDS', 300, 30, 3600),
      recoveryCodeScryptLogN: int(env, 'RECOVERY_CODE_SCRYPT_LOG_N', 14, 10, 18),
    },
    mail: {
      sendgridApiKey,
      sendgridApiUrl: url(env, 'SENDGRID_API_URL', 'https://api.sendgrid.com'),
      sendgridTimeoutMs: int(env, 'SENDGRID_TIMEOUT_MS', 10000, 100, 120000),
      callbackToken,
      from: str(env, 'MAIL_FROM', 'no-reply@accounting.localhost'),
      dnsServers: str(env, 'EMAIL_DNS_SERVERS', '').split(',').map((s) => s.trim()).filter(Boolean),
      dnsTimeoutMs: int(env, 'EMAIL_DNS_TIMEOUT_MS', 2000, 100, 30000),
    },
    trustProxy: str(env, 'TRUST_PROXY', '').split(',').map((p) => p.trim()).filter(Boolean),
    requestLimits: {
      login: { perIp: rate(env, 'RATE_LIMIT_LOGIN_PER_IP', '100/300'), perEmail: rate(env, 'RATE_LIMIT_LOGIN_PER_EMAIL', '30/300') },
      register: { perIp: rate(env, 'RATE_LIMIT_REGISTER_PER_IP', '20/600'), perEmail: rate(env, 'RATE_LIMIT_REGISTER_PER_EMAIL', '10/600') },
      magicLink: { perIp: rate(env, 'RATE_LIMIT_MAGIC_LINK_PER_IP', '20/3600'), perEmail: rate(env, 'RATE_LIMIT_MAGIC_LINK_PER_EMAIL', '5/3600') },
      passwordReset: {
        perIp: rate(env, 'RATE_LIMIT_PASSWORD_RESET_PER_IP', '20/3600'),
        perEmail: rate(env, 'RATE_LIMIT_PASSWORD_RESET_PER_EMAIL', '5/3600'),
      },
      emailChallenge: {
        perIp: rate(env, 'RATE_LIMIT_EMAIL_CHALLENGE_PER_IP', '50/600'),
        perEmail: rate(env, 'RATE_LIMIT_EMAIL_CHALLENGE_PER_EMAIL', '10/600'),
      },
      invitationAccept: {
        perIp: rate(env, 'RATE_LIMIT_INVITATION_ACCEPT_PER_IP', '20/600'),
        perEmail: rate(env, 'RATE_LIMIT_INVITATION_ACCEPT_PER_EMAIL', '10/600'),
      },
      emailValidation: {
        perIp: rate(env, 'RATE_LIMIT_EMAIL_VALIDATION_PER_IP', '30/60'),
        perEmail: rate(env, 'RATE_LIMIT_EMAIL_VALIDATION_PER_EMAIL', '10/60'),
      },
    },
    credentialFailures: {
      perEmailAndIp: int(env, 'CREDENTIAL_FAILURES_PER_EMAIL_AND_IP', 10, 1, 1_000_000),
      blockSeconds: int(env, 'CREDENTIAL_FAILURES_BLOCK_SECONDS', 3600, 1, 86_400),
      perIpPerDay: int(env, 'CREDENTIAL_FAILURES_PER_IP_PER_DAY', 100, 1, 1_000_000),
    },
    webhooks: {
      allowHttp: flag(env, 'WEBHOOK_ALLOW_HTTP', !production),
      allowLoopback: flag(env, 'WEBHOOK_ALLOW_LOOPBACK', !production),
      endpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 100),
      attemptTimeoutMs: int(env, 'WEBHOOK_ATTEMPT_TIMEOUT_MS', 10000, 100, 60000),
      retryHours: int(env, 'WEBHOOK_RETRY_HOURS', 24, 1, 720),
      retryIntervalsMs: intervals(env, 'WEBHOOK_RETRY_INTERVALS_MS', DEFAULT_RETRY_INTERVALS_MS),
      disableAfterDays: int(env, 'WEBHOOK_DISABLE_AFTER_DAYS', 5, 1, 90),
      testEventsPerEndpoint: rate(env, 'RATE_LIMIT_WEBHOOK_TEST_PER_ENDPOINT', '1/10'),
      maxPendingDeliveries: int(env, 'WEBHOOK_MAX_PENDING_DELIVERIES', 100, 1, 100_000),
    },
    push: {
      fcmServiceAccountFile: env.PUSH_FCM_SERVICE_ACCOUNT_FILE || null,
      fcmEndpoint: url(env, 'PUSH_FCM_ENDPOINT', 'https://fcm.googleapis.com'),
      timeoutMs: int(env, 'PUSH_TIMEOUT_MS', 10000, 100, 120000),
    },
    rates: {
      scheduleId: str(env, 'RATES_SCHEDULE_ID', 'rates-refresh'),
      refreshIntervalSeconds: int(env, 'RATES_REFRESH_INTERVAL_SECONDS', 3600, 60, 7 * 86400),
      centralBankUrl: url(env, 'RATES_CBU_URL', 'https://cbu.uz/en/arkhiv-kursov-valyut/json/'),
      commercialBankUrl: url(env, 'RATES_BANK_URL', 'https://nbu.uz/en/exchange-rates/json/'),
      fetchTimeoutMs: int(env, 'RATES_FETCH_TIMEOUT_MS', 10000, 100, 120000),
    },
    housekeeping: {
      scheduleId: str(env, 'HOUSEKEEPING_SCHEDULE_ID', 'housekeeping'),
      intervalSeconds: int(env, 'HOUSEKEEPING_INTERVAL_SECONDS', 3600, 60, 7 * 86400),
      batchSize: int(env, 'HOUSEKEEPING_BATCH_SIZE', 1000, 1, 10000),
      maxBatches: int(env, 'HOUSEKEEPING_MAX_BATCHES', 100, 1, 10000),
    },
    validateResponses: str(env, 'VALIDATE_RESPONSES', nodeEnv === 'production' ? 'false' : 'true') === 'true',
  };
  if (config.metricsPort !== 0 && config.metricsPort === config.port) throw new ConfigError('METRICS_PORT must differ from PORT');
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(config.logLevel)) {
    throw new ConfigError('LOG_LEVEL must be debug, info, warn, error or silent');
  }
  if (!['json', 'pretty'].includes(config.logFormat)) throw new ConfigError('LOG_FORMAT must be json or pretty');
  if (production && config.logFormat === 'pretty') throw new ConfigError('LOG_FORMAT=pretty is for a terminal: production logs are JSON lines');
  if (production && !config.push.fcmServiceAccountFile) throw new ConfigError('PUSH_FCM_SERVICE_ACCOUNT_FILE is required in production');
  if (production && callbackToken.length < 32) throw new ConfigError('MAIL_CALLBACK_TOKEN (at least 32 characters) is required in production');
  // The webhook switches exist for a receiver on the developer's own machine; in production either would let a
  // workspace's ADMIN point the worker at the machine it runs on, or send signed events in clear text.
  for (const [name, on] of [['WEBHOOK_ALLOW_LOOPBACK', config.webhooks.allowLoopback], ['WEBHOOK_ALLOW_HTTP', config.webhooks.allowHttp]] as const) {
    if (production && on) throw new ConfigError(`${name}=true is for development and tests: production sends webhooks over https to public addresses only`);
  }
  if (production && config.listenHost === '') {
    throw new ConfigError('LISTEN_HOST is required in production: the address to listen on, e.g. 0.0.0.0 behind a proxy, or 127.0.0.1');
  }
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(config.rates.scheduleId)) {
    throw new ConfigError('RATES_SCHEDULE_ID must be 1..200 letters, digits, dots, underscores or hyphens');
  }
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(config.housekeeping.scheduleId)) {
    throw new ConfigError('HOUSEKEEPING_SCHEDULE_ID must be 1..200 letters, digits, dots, underscores or hyphens');
  }
  // A re-sent link must still be worth mailing: it keeps its expiry, so the window ends well before it.
  if (config.linkResends.windowSeconds * 2 > Math.min(config.registration.magicLinkTtlSeconds, config.passwordReset.ttlSeconds)) {
    throw new ConfigError('MAGIC_LINK_RESEND_WINDOW_SECONDS must be at most half of REGISTRATION_PROOF_TTL_SECONDS and of PASSWORD_RESET_TTL_SECONDS');
  }
  if (config.sessions.refreshIdleTtlSeconds > config.sessions.refreshAbsoluteTtlSeconds) {
    throw new ConfigError('REFRESH_TOKEN_IDLE_TTL_SECONDS cannot exceed REFRESH_TOKEN_ABSOLUTE_TTL_SECONDS');
  }
  return config;
}
