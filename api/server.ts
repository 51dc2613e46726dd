import type { Server } from 'node:http';
import type { Express } from 'express';
import { loadConfig, type Config } from '../runtime/config';
import { createLogger, type Logger } from '../runtime/logger';
import { createMailer } from '../adapters/mail';
import { storeOutboxMessage } from '../db/repositories/mail/outbox';
import { openDatabase } from '../db/open';
import { createApp } from './app';
import { createApiMetrics, metricsApp } from './http/metrics';
import { connectTemporal } from './workflow-client';

export interface RunningServer {
  server: Server;
  port: number;
  /** The metrics listener (GET /metrics, Prometheus text), on its own port. */
  metricsServer: Server;
  metricsPort: number;
  stop(): Promise<void>;
}

/** Listens on host:port (0: any free port); rejects when the address cannot be bound. */
function listen(app: Express, host: string, port: number): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/**
 * Starts the API with its own connections, and its metrics listener, both on LISTEN_HOST (loopback unless
 * configured); `stop()` closes them.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const db = openDatabase(config.database.url, { poolMax: config.database.poolMax });
  const { client: temporal, connection } = await connectTemporal(config.temporal);
  const metrics = createApiMetrics(db);
  const app = createApp({
    config,
    db,
    temporal,
    logger,
    metrics,
    mailer: createMailer(config.mail, { store: (message) => storeOutboxMessage(db, message) }),
  });
  const api = await listen(app, config.listenHost, config.port);
  const exporter = await listen(metricsApp(metrics), config.listenHost, config.metricsPort).catch(async (err: unknown) => {
    await close(api.server);
    throw err;
  });
  return {
    server: api.server,
    port: api.port,
    metricsServer: exporter.server,
    metricsPort: exporter.port,
    async stop() {
      await Promise.all([close(api.server), close(exporter.server)]);
      await connection.close();
      await db.close();
    },
  };
}

/** The host to print in addresses: localhost for loopback and every interface, else the address itself. */
function shownHost(listenHost: string): string {
  if (['127.0.0.1', '0.0.0.0', '::', '::1'].includes(listenHost)) return 'localhost';
  return listenHost.includes(':') ? `[${listenHost}]` : listenHost;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { service: 'api' }, undefined, config.logFormat);
  const running = await startServer(config, logger);
  const host = shownHost(config.listenHost);
  logger.info('api started', {
    listenHost: config.listenHost,
    api: `http://${host}:${running.port}/api/v1`,
    docs: `http://${host}:${running.port}/docs`,
    metrics: `http://${host}:${running.metricsPort}/metrics`,
    mail: config.mail.sendgridApiKey ? 'sendgrid' : `outbox (GET http://${host}:${running.port}/dev/mail?to=...)`,
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
