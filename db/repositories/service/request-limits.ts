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

/** One kind of counter in request_limits (its keys start with `keyPrefix`). */
export function requestLimitCounter(db: Sequelize, options: CounterOptions): RateLimiterPostgres {
  return new RateLimiterPostgres({ storeClient: db, storeType: 'sequelize', tableName: 'request_limits', tableCreated: true, ...options });
}
