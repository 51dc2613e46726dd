import { AppError } from '../shared/problems';

// Password hashing is memory-hard and CPU-bound (Argon2id at 19 MiB and two passes is about 20 ms of one core; a scrypt hash stored before it, half a second).
// Unbounded, a burst of logins takes every core from the event loop and from PostgreSQL, and every read
// slows down with it. The gate lets `concurrency` hashes run at once (by default one core fewer than the
// machine has) and queues the rest; a hash that waits longer than `maxWaitMs` is refused with 503 and
// Retry-After, so a client backs off instead of piling up. One client address may hold at most `perClient`
// of the slots and places in line together: beyond that its next hash is refused at once with 429, so a
// burst from one address cannot fill the line that everyone else's logins wait in. Hand-written (50 lines):
// the libraries for this (p-limit, p-queue) have no per-waiter timeout or per-key share and are ESM-only.

export interface HashGate {
  /** Runs `work` when a slot is free; `client` (the caller's address) is held to its share of the gate. */
  run<T>(work: () => Promise<T>, client?: string | null): Promise<T>;
  /** Hashes running and waiting now, and the waiters refused so far (for metrics). */
  readonly running: number;
  readonly waiting: number;
  readonly refused: number;
}

export interface HashGateOptions {
  concurrency: number;
  maxWaitMs: number;
  /** Hashes one client address may have running and waiting at once (unbounded when absent). */
  perClient?: number;
}

export function createHashGate(options: HashGateOptions): HashGate {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const retryAfter = String(Math.max(1, Math.ceil(options.maxWaitMs / 1000)));
  const perClient = options.perClient === undefined ? Infinity : Math.max(1, Math.floor(options.perClient));
  let running = 0;
  let refused = 0;
  const queue: Array<() => void> = [];
  const held = new Map<string, number>();

  const enter = (client: string | null | undefined): (() => void) => {
    if (!client) return () => undefined;
    const count = held.get(client) ?? 0;
    if (count >= perClient) {
      refused += 1;
      throw new AppError('too-many-requests', 'Too many password checks from this address at once; try again shortly', { retryAfter: 1 }, { 'Retry-After': '1' });
    }
    held.set(client, count + 1);
    return () => {
      const left = (held.get(client) ?? 1) - 1;
      if (left > 0) held.set(client, left);
      else held.delete(client);
    };
  };

  const release = () => {
    const next = queue.shift();
    if (next) next();
    else running -= 1;
  };

  const acquire = (): Promise<void> => {
    if (running < concurrency) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        resolve(); // the slot passes from the releasing hash to this one: `running` stays
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(admit), 1);
        refused += 1;
        reject(
          new AppError('server-busy', 'Too many password checks are running; try again shortly', { retryAfter: Number(retryAfter) }, { 'Retry-After': retryAfter }),
        );
      }, options.maxWaitMs);
      queue.push(admit);
    });
  };

  return {
    async run(work, client) {
      const leave = enter(client);
      try {
        await acquire();
        try {
          return await work();
        } finally {
          release();
        }
      } finally {
        leave();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
    get refused() {
      return refused;
    },
  };
}
