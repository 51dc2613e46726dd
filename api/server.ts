import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../core/config';
import { createLogger, type Logger } from '../core/logger';
import { createMailer } from '../adapters/mail';
import { storeOutboxMessage } from '../db/repositories/mail/outbox';
import { createSequelize } from '../db/connection';
import { initModels } from '../db/models';
import { createApp } from './app';
import { temporalConnectionOptions } from '../adapters/temporal/connection';

export interface RunningServer {
  server: Server;
  port: number;
  stop(): Promise<void>;
}

/** Starts the API with its own connections; `stop()` closes them. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const db = createSequelize(config.database.url, { poolMax: config.database.poolMax });
  initModels(db);
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const temporal = new Client({ connection, namespace: config.temporal.namespace });
  const app = createApp({
    config,
    db,
    temporal,
    logger,
    mailer: createMailer(config.mail, { store: (message) => storeOutboxMessage(db, message) }),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(config.port, '0.0.0.0', () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    server,
    port,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await connection.close();
      await db.close();
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { service: 'api' });
  const running = await startServer(config, logger);
  logger.info('api started', {
    api: `http://localhost:${running.port}/api/v1`,
    docs: `http://localhost:${running.port}/docs`,
    mail: config.mail.sendgridApiKey ? 'sendgrid' : `outbox (GET http://localhost:${running.port}/dev/mail?to=...)`,
  });
  const shutdown = async (signal: string) => {
    logger.info('api stopping', { signal });
    await running.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'api failed to start', error: err instanceof Error ? err.message : String(err) })}\n`);
    process.exit(1);
  });
}
