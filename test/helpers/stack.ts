import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import type { Express } from 'express';
import type { Sequelize } from 'sequelize';
import { createApp, type AppDeps } from '../../api/app';
import { createApiMetrics, type ApiMetrics } from '../../api/http/metrics';
import { loadOpenApiDocument, type OpenApiDocument } from '../../contracts/operations';
import { databaseName, loadConfig, type Config } from '../../runtime/config';
import { createLogger } from '../../runtime/logger';
import { createOutboxMailer } from '../../adapters/mail';
import { storeOutboxMessage } from '../../db/repositories/mail/outbox';
import { createSequelize } from '../../db/connection';
import { openDatabase } from '../../db/open';
import { dropDatabase, setupDatabase } from '../../db/setup';
import { createWorker } from '../../worker/create-worker';
import { startRelay, type StartRelay } from '../../worker/start-relay';

const BUNDLE_PATH = path.join(__dirname, '..', '.tmp', 'workflow-bundle.js');
let runtimeInstalled = false;

/**
 * Every test file's requests come from 127.0.0.1, so per-IP request limits, the failed credentials per IP
 * and day, and the password hashes one address may hold are lifted by default; the tests of those limits
 * set them back (an empty value means the default) and send their own client IPs. So are the test events
 * per webhook endpoint (one per 10 s), which files that send several in a row would otherwise wait for.
 */
const PER_IP_UNLIMITED: Record<string, string> = {
  RATE_LIMIT_LOGIN_PER_IP: '1000000/1',
  RATE_LIMIT_REGISTER_PER_IP: '1000000/1',
  RATE_LIMIT_MAGIC_LINK_PER_IP: '1000000/1',
  RATE_LIMIT_EMAIL_CHALLENGE_PER_IP: '1000000/1',
  RATE_LIMIT_INVITATION_ACCEPT_PER_IP: '1000000/1',
  RATE_LIMIT_EMAIL_VALIDATION_PER_IP: '1000000/1',
  RATE_LIMIT_PASSWORD_RESET_PER_IP: '1000000/1',
  CREDENTIAL_FAILURES_PER_IP_PER_DAY: '1000000',
  PASSWORD_HASH_PER_CLIENT: '1000',
  RATE_LIMIT_WEBHOOK_TEST_PER_ENDPOINT: '1000000/1',
};

export interface TestStack {
  config: Config;
  app: Express;
  /** The app's metrics, which api/server.ts serves on the metrics listener (`metricsApp`). */
  metrics: ApiMetrics;
  db: Sequelize;
  /** A superuser connection to the test database: for arranging states and reading around row-level security. */
  admin: Sequelize;
  /** A connection as the owner role (runs migrations; bound by row-level security like the application role). */
  owner: Sequelize;
  temporal: Client;
  taskQueue: string;
  /** The prebuilt workflow bundle, for workers the test starts itself. */
  workflowBundlePath: string;
  doc: OpenApiDocument;
  /** This stack's workflow-start relay (the outbox reconciler every worker runs). */
  relay: StartRelay;
  stop(): Promise<void>;
}

/** The superuser's URL, on the test database instead of the maintenance one. */
export function adminUrlOf(config: Config): string {
  if (!config.database.adminUrl) throw new Error('the tests need DATABASE_ADMIN_URL (a superuser) to read around row-level security');
  const url = new URL(config.database.adminUrl);
  url.pathname = `/${databaseName(config.database.url)}`;
  return url.toString();
}

/** The configuration every test app uses: fast password hashing, silent logs, per-IP limits lifted. */
export function loadTestConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...process.env, NODE_ENV: 'test', PASSWORD_ARGON2_MEMORY_KIB: '4096', PASSWORD_ARGON2_TIME_COST: '1', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...PER_IP_UNLIMITED, ...overrides });
}

/**
 * The real app with a real worker on its own task queue, against the test database and the Temporal dev
 * server that `npm test` started. One per test file.
 */
export async function startTestStack(
  overrides: Record<string, string> = {},
  options: {
    worker?: boolean;
    relayIntervalMs?: number;
    /** Receives every API and worker log line (else stdout). */
    log?: (line: string) => void;
    /**
     * A database of this stack's own (dropped and set up afresh), for a file that changes what every workspace
     * shares (the rates), which files running beside it in the shared test database would otherwise see.
     */
    ownDatabase?: string;
  } = {},
): Promise<TestStack> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const taskQueue = `test-${path.basename(expect.getState().testPath ?? 'suite')}-${randomUUID()}`;
  // Each stack has its own rate-refresh Schedule, and no stack reads a real bank unless the test says so:
  // port 9 refuses at once.
  const config = loadTestConfig({
    RATES_SCHEDULE_ID: `rates-refresh-${taskQueue}`,
    HOUSEKEEPING_SCHEDULE_ID: `housekeeping-${taskQueue}`,
    RATES_CBU_URL: 'http://127.0.0.1:9/cbu',
    RATES_BANK_URL: 'http://127.0.0.1:9/bank',
    ...(options.ownDatabase ? { DATABASE_NAME: `${databaseName(loadTestConfig().database.url)}_${options.ownDatabase}` } : {}),
    ...overrides,
  });
  if (options.ownDatabase) {
    await dropDatabase(config, databaseName(config.database.url));
    await setupDatabase(config);
  }
  const logger = createLogger(config.logLevel, {}, options.log);
  const db = openDatabase(config.database.url, { poolMax: 20 });
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  const admin = createSequelize(adminUrlOf(config), { poolMax: 2 });
  const doc = loadOpenApiDocument();
  const mailer = createOutboxMailer({ store: (message) => storeOutboxMessage(db, message) });

  // Without the in-process worker, the test brings its own (e.g. a child process it can kill).
  const nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
  const worker: Worker | null = options.worker === false ? null : await createWorker({
    config,
    connection: nativeConnection,
    db,
    mailer,
    logger,
    taskQueue,
    workflowBundlePath: BUNDLE_PATH,
  });
  const running = worker?.run();

  const connection = await Connection.connect({ address: config.temporal.address });
  const temporal = new Client({ connection, namespace: config.temporal.namespace });
  // Every stack runs a start relay too, as every worker does (ticking fast, so tests need not wait).
  const relay = startRelay({ db, client: temporal, logger, taskQueue, intervalMs: options.relayIntervalMs ?? 250 });
  const metrics = createApiMetrics(db);
  const app = createApp({
    config,
    db,
    temporal,
    logger,
    mailer,
    doc,
    taskQueue,
    metrics,
  });

  return {
    config,
    app,
    metrics,
    db,
    admin,
    owner,
    temporal,
    taskQueue,
    workflowBundlePath: BUNDLE_PATH,
    doc,
    relay,
    async stop() {
      await relay.stop();
      // A Schedule outlives its stack unless deleted (POST /rates/refresh creates one when it is missing).
      await temporal.schedule.getHandle(config.rates.scheduleId).delete().catch(() => undefined);
      await temporal.schedule.getHandle(config.housekeeping.scheduleId).delete().catch(() => undefined);
      worker?.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await db.close();
      await owner.close();
      await admin.close();
    },
  };
}

/**
 * Another API process in all but name over the stack's database and Temporal: its own app, services and
 * in-memory state, silent, with `overrides` (e.g. a counting hasher, a held hash gate, an unreachable Temporal).
 */
export function anotherApp(stack: TestStack, overrides: Partial<AppDeps> = {}): Express {
  return createApp({
    config: stack.config,
    db: stack.db,
    temporal: stack.temporal,
    logger: createLogger('silent'),
    mailer: createOutboxMailer({ store: (message) => storeOutboxMessage(stack.db, message) }),
    taskQueue: stack.taskQueue,
    ...overrides,
  });
}
