import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../runtime/config';
import { createLogger } from '../runtime/logger';
import { createMailer } from '../adapters/mail';
import { storeOutboxMessage } from '../db/repositories/mail/outbox';
import { openDatabase } from '../db/open';
import { createWorker } from './create-worker';
import { ensureSearchAttributes } from './search-attributes';
import { startRelay } from './start-relay';
import { ensureRatesSchedule } from '../adapters/temporal/rates-schedule';
import { ensureHousekeepingSchedule } from '../adapters/temporal/housekeeping-schedule';
import { temporalConnectionOptions } from '../adapters/temporal/connection';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { service: 'worker' }, undefined, config.logFormat);
  // The SDK's own log lines go through the same JSON logger as ours.
  const sdkLog = logger.child({ component: 'temporal-sdk' });
  Runtime.install({
    logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'INFO', ({ level, message, meta }) => {
      const fields = { ...(meta ?? {}) } as Record<string, unknown>;
      if (level === 'ERROR') sdkLog.error(message, fields);
      else if (level === 'WARN') sdkLog.warn(message, fields);
      else if (level === 'INFO') sdkLog.info(message, fields);
      else sdkLog.debug(message, fields);
    }),
    // The SDK's own metrics (task slots, poll and schedule-to-start latencies, activity outcomes) for Prometheus.
    ...(config.temporal.workerMetricsAddress
      ? { telemetryOptions: { metrics: { prometheus: { bindAddress: config.temporal.workerMetricsAddress, countersTotalSuffix: true, unitSuffix: true } } } }
      : {}),
  });
  const db = openDatabase(config.database.url, { poolMax: config.database.poolMax });
  const temporalOptions = temporalConnectionOptions(config.temporal);
  await ensureSearchAttributes(temporalOptions, config.temporal.namespace, logger);
  const connection = await NativeConnection.connect(temporalOptions);
  const worker = await createWorker({
    config,
    connection,
    db,
    mailer: createMailer(config.mail, { store: (message) => storeOutboxMessage(db, message) }),
    logger,
  });
  const clientConnection = await Connection.connect(temporalOptions);
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
  // The scheduled jobs: every worker makes sure each Schedule exists with this configuration.
  const schedule = { ...config.rates, taskQueue: config.temporal.taskQueue };
  const scheduleOutcome = await ensureRatesSchedule(client, schedule);
  logger.info('rates schedule ready', { scheduleId: schedule.scheduleId, intervalSeconds: schedule.refreshIntervalSeconds, outcome: scheduleOutcome });
  const housekeeping = { ...config.housekeeping, taskQueue: config.temporal.taskQueue };
  const housekeepingOutcome = await ensureHousekeepingSchedule(client, housekeeping);
  logger.info('housekeeping schedule ready', { scheduleId: housekeeping.scheduleId, intervalSeconds: housekeeping.intervalSeconds, outcome: housekeepingOutcome });
  const relay = startRelay({
    db,
    client,
    logger: logger.child({ component: 'start-relay' }),
    taskQueue: config.temporal.taskQueue,
    intervalMs: config.temporal.startRelayIntervalMs,
  });
  logger.info('worker started', { taskQueue: config.temporal.taskQueue, namespace: config.temporal.namespace });
  // worker.run() resolves after SIGINT/SIGTERM (the Runtime's default shutdown signals) drain the worker.
  await worker.run();
  await relay.stop();
  await clientConnection.close();
  await connection.close();
  await db.close();
  logger.info('worker stopped');
}

main().catch((err) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'worker failed', error: err instanceof Error ? err.message : String(err) })}\n`);
  process.exit(1);
});
