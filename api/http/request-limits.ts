import ipaddr from 'ipaddr.js';
import { RateLimiterRes, type RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Sequelize } from 'sequelize';
import { requestLimitCounter } from '../../db/repositories/service/request-limits';
import { sha256 } from '../../core/identity/secrets';
import { AppError } from '../../core/shared/problems';
import type { Config, LimitedAction, RateWindow } from '../../runtime/config';

/**
 * Checks one request of a limited kind against its client IP and its target (the email address it names,
 * the invitation token, or the identity an emailed code goes to); throws 429 too-many-requests when either
 * is over its limit.
 */
export interface RequestLimits {
  consume(action: LimitedAction, keys: { ip: string | null; target: string }): Promise<void>;
}

/**
 * Actions whose target is an email anyone can type: counted per email *from one client IP*, so a stranger's
 * requests never use up the budget of the address's owner elsewhere (only the client IP's own limit binds
 * the stranger). The others name something only its holder has (a token, an identity past its password).
 */
const PER_TARGET_AND_IP: ReadonlySet<LimitedAction> = new Set<LimitedAction>(['login', 'register', 'magicLink', 'passwordReset']);

/**
 * Actions that mail someone: a link to the address the caller names (magic link, password reset), a code to
 * an identity's address (email challenges), an invitation's join link (acceptance). Their client is counted
 * by its network (clientNetwork), so one IPv6 host cannot take a fresh client budget from each of the 2^64
 * addresses of its /64 and spend a stranger's mail budget with them.
 */
const PER_NETWORK: ReadonlySet<LimitedAction> = new Set<LimitedAction>(['magicLink', 'passwordReset', 'emailChallenge', 'invitationAccept']);

/**
 * The client as the mail-sending limits count it: an IPv4 address as it is (an IPv4-mapped IPv6 address is
 * the IPv4 address it maps), an IPv6 address by its /64, the smallest network a subscriber is given. Anything
 * else (not an IP address) as it is.
 */
export function clientNetwork(ip: string): string {
  const address = ip.replace(/%.*$/, ''); // a zone id names an interface, not a client
  if (!ipaddr.isValid(address)) return ip;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}

const hashed = (...parts: string[]) => sha256(parts.join('\n')).toString('base64url');

const tooMany = (retryAfter: number, detail: string) =>
  new AppError('too-many-requests', `${detail}; try again in ${retryAfter} seconds`, { retryAfter }, { 'Retry-After': String(retryAfter) });

/**
 * Request-rate limits in PostgreSQL (rate-limiter-flexible's store on the `request_limits` table), so every
 * API process counts together. Called before any password is hashed: an unknown email costs a hash too.
 */
export function createRequestLimits(
  db: Sequelize,
  limits: Config['requestLimits'],
  onRejected: (action: LimitedAction) => void = () => undefined,
): RequestLimits {
  const limiter = (keyPrefix: string, window: RateWindow) => requestLimitCounter(db, { keyPrefix, points: window.points, duration: window.seconds });
  const limiters = Object.fromEntries(
    Object.entries(limits).map(([action, { perIp, perEmail }]) => [action, { ip: limiter(`${action}:ip`, perIp), email: limiter(`${action}:email`, perEmail) }]),
  ) as Record<LimitedAction, { ip: RateLimiterPostgres; email: RateLimiterPostgres }>;

  return {
    async consume(action, { ip, target }) {
      const { ip: byIp, email: byTarget } = limiters[action];
      const normalised = target.trim().toLowerCase();
      const client = ip && PER_NETWORK.has(action) ? clientNetwork(ip) : ip;
      // Targets are keyed by their hash: the counters never hold an address.
      const targetKey = PER_TARGET_AND_IP.has(action) ? hashed(normalised, client ?? '') : hashed(normalised);
      const checks = [byTarget.consume(targetKey)];
      if (client) checks.push(byIp.consume(client));
      const outcomes = await Promise.allSettled(checks);
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      const error = refused.find((r) => !(r instanceof RateLimiterRes));
      if (error) throw error;
      if (refused.length === 0) return;
      onRejected(action);
      throw tooMany(Math.max(1, ...refused.map((r) => Math.ceil((r as RateLimiterRes).msBeforeNext / 1000))), 'Too many requests of this kind');
    },
  };
}

/** One kind of request counted per key (e.g. a webhook endpoint), in the same PostgreSQL store as the limits above. */
export interface KeyedLimit {
  /** Counts one request for `key`; throws 429 too-many-requests (with Retry-After) past the window's points. */
  consume(key: string): Promise<void>;
}

export function createKeyedLimit(
  db: Sequelize,
  keyPrefix: string,
  window: RateWindow,
  onRejected: () => void = () => undefined,
): KeyedLimit {
  const counter = requestLimitCounter(db, { keyPrefix, points: window.points, duration: window.seconds });
  return {
    async consume(key) {
      try {
        await counter.consume(key);
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        onRejected();
        throw tooMany(Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)), 'Too many requests of this kind');
      }
    },
  };
}

/**
 * Failed credential checks, after the login protection rate-limiter-flexible documents: consecutive
 * failures per (email, client IP), which a success resets, and failures per client IP per day. Only
 * failures count, and only from the address that makes them, so nobody can lock a person out from
 * somewhere else, while guessing stays bounded per address.
 */
export interface CredentialGuard {
  /** Refuses with 429 while the pair or the IP is blocked (counting nothing); else the attempt to settle. */
  check(keys: { email: string; ip: string | null }): Promise<CredentialAttempt>;
}

/** One checked attempt: its outcome is counted once, by one of these. */
export interface CredentialAttempt {
  /** Counts one failed check (it may block the pair or the IP from the next request on). */
  fail(): Promise<void>;
  /** A passed check clears the pair's consecutive failures (nothing to write when there were none). */
  succeed(): Promise<void>;
}

export function createCredentialGuard(
  db: Sequelize,
  policy: Config['credentialFailures'],
  onRejected: () => void = () => undefined,
): CredentialGuard {
  const byPair = requestLimitCounter(db, {
    keyPrefix: 'credentials:email-ip',
    points: policy.perEmailAndIp,
    // The failures stay "consecutive" for a long time: only a success (or a quiet 90 days) clears them.
    duration: 90 * 86_400,
    blockDuration: policy.blockSeconds,
  });
  const byIp = requestLimitCounter(db, { keyPrefix: 'credentials:ip', points: policy.perIpPerDay, duration: 86_400, blockDuration: 86_400 });
  const pairKey = (email: string, ip: string | null) => hashed(email.trim().toLowerCase(), ip ?? '');

  const refuse = (msBeforeNext: number) => {
    onRejected();
    return tooMany(Math.max(1, Math.ceil(msBeforeNext / 1000)), 'Too many failed attempts from this address');
  };

  return {
    async check({ email, ip }) {
      const key = pairKey(email, ip);
      const [pair, address] = await Promise.all([byPair.get(key), ip ? byIp.get(ip) : Promise.resolve(null)]);
      const blocked = [
        pair && pair.consumedPoints > policy.perEmailAndIp ? pair.msBeforeNext : null,
        address && address.consumedPoints > policy.perIpPerDay ? address.msBeforeNext : null,
      ].filter((ms): ms is number => ms !== null);
      if (blocked.length > 0) throw refuse(Math.max(...blocked));
      return {
        async fail() {
          const outcomes = await Promise.allSettled([byPair.consume(key), ...(ip ? [byIp.consume(ip)] : [])]);
          const error = outcomes.find((o) => o.status === 'rejected' && !(o.reason instanceof RateLimiterRes));
          if (error) throw (error as PromiseRejectedResult).reason;
          // A failure that reached the limit is still answered as a failure; the block holds from the next request.
        },
        async succeed() {
          if (pair && pair.consumedPoints > 0) await byPair.delete(key);
        },
      };
    },
  };
}
