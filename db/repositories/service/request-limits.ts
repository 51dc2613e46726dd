import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Sequelize } from 'sequelize';

// The request-rate counters (table request_limits), which every API process shares. Serves the request limits
// and the credential guard (api/http/request-limits.ts). No model and no SQL of ours: rate-limiter-flexible's
// PostgreSQL store writes its own statements (one upsert per counted request) through the pool.

export interface CounterOptions {
  keyPrefix: string;
  points: number;
  /** Seconds a count lives. */
  duration: number;
  /** Seconds a key stays refused once over its points. */
  blockDuration?: number;
}

interface StoreQuery {
  name?: string;
  text: string;
  values?: unknown[];
}

interface PgConnection {
  query(query: { text: string; values?: unknown[] }): Promise<unknown>;
}

/**
 * The Sequelize pool as the store's "pool" client, sending each statement unnamed. The store names its
 * statements (`rlflx-upsert`, …), which makes them protocol-level prepared statements that live in one
 * server session; behind PgBouncer in transaction mode (1.18 cannot carry them) the next transaction may
 * run on a session that never prepared them, or one that already did. Unnamed, each is parsed with its
 * parameters in the same round trip, and values stay parameters, never inlined.
 */
export function unnamedStatements(db: Sequelize): { query(query: StoreQuery): Promise<unknown> } {
  const connections = db.connectionManager as unknown as {
    getConnection(): Promise<PgConnection>;
    releaseConnection(connection: PgConnection): Promise<void>;
  };
  return {
    async query({ text, values }: StoreQuery): Promise<unknown> {
      const connection = await connections.getConnection();
      try {
        return await connection.query({ text, values });
      } finally {
        await connections.releaseConnection(connection);
      }
    },
  };
}

/** One kind of counter in request_limits (its keys start with `keyPrefix`). */
export function requestLimitCounter(db: Sequelize, options: CounterOptions): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: unnamedStatements(db),
    storeType: 'pool',
    tableName: 'request_limits',
    tableCreated: true,
    ...options,
  });
}
