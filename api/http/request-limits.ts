import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Sequelize } from 'sequelize';
import { sha256 } from '../../core/secrets';
import { AppError } from '../../core/problems';
import type { Config, LimitedAction, RateWindow } from '../../core/config';

/**
 * Checks one request of a limited kind against its client IP and its target (the email address it names,
 * or the identity an emailed code goes to); throws 429 too-many-requests when either is over its limit.
 */
export interface RequestLimits {
  consume(action: LimitedAction, keys: { ip: string | null; target: string }): Promise<void>;
}

/**
 * Request-rate limits in PostgreSQL (rate-limiter-flexible's store on the `request_limits` table), so every
 * API process counts together. Called before any password is hashed: an unknown email costs a hash too.
 */
export function createRequestLimits(
  db: Sequelize,
  limits: Config['requestLimits'],
  onRejected: (action: LimitedAction) => void = () => undefined,
): RequestLimits {
  const limiter = (keyPrefix: string, window: RateWindow) =>
    new RateLimiterPostgres({
      storeClient: db,
      storeType: 'sequelize',
      tableName: 'request_limits',
      tableCreated: true,
      keyPrefix,
      points: window.points,
      duration: window.seconds,
    });
  const limiters = Object.fromEntries(
    Object.entries(limits).map(([action, { perIp, perEmail }]) => [action, { ip: limiter(`${action}:ip`, perIp), email: limiter(`${action}:email`, perEmail) }]),
  ) as Record<LimitedAction, { ip: RateLimiterPostgres; email: RateLimiterPostgres }>;

  return {
    async consume(action, { ip, target }) {
      const { ip: byIp, email: byTarget } = limiters[action];
      // Targets are keyed by their hash: the counters never hold an address.
      const checks = [byTarget.consume(sha256(target.trim().toLowerCase()).toString('base64url'))];
      if (ip) checks.push(byIp.consume(ip));
      const outcomes = await Promise.allSettled(checks);
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      const error = refused.find((r) => !(r instanceof RateLimiterRes));
      if (error) throw error;
      if (refused.length === 0) return;
      onRejected(action);
      const retryAfter = Math.max(1, ...refused.map((r) => Math.ceil((r as RateLimiterRes).msBeforeNext / 1000)));
      throw new AppError(
        'too-many-requests',
        `Too many requests of this kind; try again in ${retryAfter} seconds`,
        { retryAfter },
        { 'Retry-After': String(retryAfter) },
      );
    },
  };
}
