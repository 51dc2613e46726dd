import express, { type Express } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sequelize } from 'sequelize';
import type { StartOutcome } from '../../contracts/workflow-starts';
import type { HashGate } from '../../core/identity/hash-gate';

// The API's Prometheus metrics (prom-client), one registry per app. Labels are bounded: operation ids come
// from the document, statuses from HTTP, workflow types and limited actions from our code; never a path,
// a tenant or a user.

export interface ApiMetrics {
  registry: Registry;
  observeRequest(operationId: string | undefined, method: string, status: number, seconds: number): void;
  observeWorkflowStart(workflowType: string, outcome: StartOutcome['outcome'], seconds: number): void;
  countRateLimitRejection(action: string): void;
  /** Reports the password-hash gate: running and waiting now, refusals so far. */
  watchHashGate(gate: HashGate): void;
  /** The settings that change the cost of a request (api_configuration_info), for a benchmark's header. */
  describeConfiguration(settings: ConfigurationLabels): void;
  /** One company's journal postings committed together (or alone, or each retried alone after the group failed). */
  observePostingGroup(size: number, outcome: PostingGroupOutcome): void;
}

/** How a group of journal postings ended: one posting alone, the group committed, or each posting retried alone. */
export type PostingGroupOutcome = 'alone' | 'committed' | 'retried-alone';

export interface ConfigurationLabels {
  node_env: string;
  validate_responses: string;
  log_level: string;
  log_format: string;
}

interface SequelizePool {
  size: number;
  available: number;
  using: number;
  waiting: number;
}

export function createApiMetrics(db: Sequelize): ApiMetrics {
  const registry = new Registry();
  // Process CPU, memory, GC and the event loop's lag (nodejs_eventloop_lag_p99_seconds and friends).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });

  const http = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by operation id (unmatched: none), method and status',
    labelNames: ['operation', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const starts = new Histogram({
    name: 'workflow_start_duration_seconds',
    help: 'Time to start a workflow on Temporal, by workflow type and outcome (STARTED, ALREADY_STARTED, UNAVAILABLE: left to the relay)',
    labelNames: ['workflow_type', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 by a request-rate limit, by limited action',
    labelNames: ['action'] as const,
    registers: [registry],
  });
  const pool = () => (db.connectionManager as unknown as { pool?: SequelizePool }).pool;
  const gauge = (name: string, help: string, read: (p: SequelizePool) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const p = pool();
        this.set(p ? read(p) : 0);
      },
    });
  gauge('db_pool_connections', 'Connections the database pool holds (in use and idle)', (p) => p.size);
  gauge('db_pool_connections_in_use', 'Connections lent to a request or transaction', (p) => p.using);
  gauge('db_pool_connections_idle', 'Connections open and free', (p) => p.available);
  gauge('db_pool_waiting_requests', 'Requests waiting for a connection (the pool is exhausted while this is above 0)', (p) => p.waiting);

  let hashGate: HashGate | null = null;
  new Gauge({
    name: 'password_hashes_running',
    help: 'Password hashes (Argon2id, or scrypt for a hash stored before it) running now; at most PASSWORD_HASH_CONCURRENCY',
    registers: [registry],
    collect() {
      this.set(hashGate?.running ?? 0);
    },
  });
  new Gauge({
    name: 'password_hashes_waiting',
    help: 'Password hashes queued for their turn',
    registers: [registry],
    collect() {
      this.set(hashGate?.waiting ?? 0);
    },
  });
  let refusalsSeen = 0;
  new Counter({
    name: 'password_hash_refusals_total',
    help: 'Requests answered 503 server-busy because their password hash waited longer than PASSWORD_HASH_MAX_WAIT_MS',
    registers: [registry],
    collect() {
      const refused = hashGate?.refused ?? 0;
      if (refused > refusalsSeen) this.inc(refused - refusalsSeen);
      refusalsSeen = refused;
    },
  });

  const postingGroups = new Histogram({
    name: 'ledger_posting_group_size',
    help: 'Journal postings of one company committed in one transaction (group commit), by outcome (alone, committed, retried-alone)',
    labelNames: ['outcome'] as const,
    buckets: [1, 2, 4, 8, 16, 32],
    registers: [registry],
  });

  const configuration = new Gauge({
    name: 'api_configuration_info',
    help: 'Always 1: the settings that change what a request costs (NODE_ENV, response validation, logging), as labels',
    labelNames: ['node_env', 'validate_responses', 'log_level', 'log_format'] as const,
    registers: [registry],
  });

  return {
    registry,
    watchHashGate(gate) {
      hashGate = gate;
    },
    describeConfiguration(settings) {
      configuration.reset();
      configuration.set({ ...settings }, 1);
    },
    observeRequest(operationId, method, status, seconds) {
      http.observe({ operation: operationId ?? 'none', method, status: String(status) }, seconds);
    },
    observeWorkflowStart(workflowType, outcome, seconds) {
      starts.observe({ workflow_type: workflowType, outcome }, seconds);
    },
    countRateLimitRejection(action) {
      rejections.inc({ action });
    },
    observePostingGroup(size, outcome) {
      postingGroups.observe({ outcome }, size);
    },
  };
}

/**
 * The metrics listener's app: GET /metrics in the Prometheus text format, nothing else. It listens on its
 * own port (METRICS_PORT), never the API's, so no host or proxy in front of the API can reach it.
 */
export function metricsApp(metrics: Pick<ApiMetrics, 'registry'>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return app;
}
