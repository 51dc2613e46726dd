import type { Sequelize } from 'sequelize';
import { FactorAttempt } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';

// The attempt window of an identity's second-factor and current-password checks (table factor_attempts),
// shared by login, register, resetPassword, stepUpSession and the /me/security operations. Raw SQL: the
// window is reserved under an advisory lock and counted on the database clock.

export type AttemptKind = 'EMAIL_CODE' | 'TOTP' | 'RECOVERY_CODE' | 'CURRENT_PASSWORD';

export interface AttemptPolicy {
  limit: number;
  windowSeconds: number;
}

/**
 * Reserves one factor attempt in the identity's window, or answers how many seconds until one is allowed.
 * Serialised per identity with a transaction-scoped advisory lock, so N concurrent checks from any number
 * of API processes reserve at most `limit`. The reservation counts until `releaseFactorAttempt`.
 */
export async function reserveFactorAttempt(
  db: Sequelize,
  identityId: string,
  input: { kind: AttemptKind; policy: AttemptPolicy },
): Promise<{ attemptId: string } | { retryAfter: number }> {
  return db.transaction(async (tx) => {
    await selectRows(tx, `SELECT pg_advisory_xact_lock(hashtextextended(:identityId, 6238))`, { identityId });
    const retryAfter = await secondsUntilAttemptAllowed(tx, identityId, input.policy);
    if (retryAfter !== null) return { retryAfter };
    const [row] = await selectRows<{ id: string }>(
      tx,
      `INSERT INTO factor_attempts (identity_id, kind) VALUES (:identityId, :kind) RETURNING id`,
      { identityId, kind: input.kind },
    );
    return { attemptId: row!.id };
  });
}

/** A check that passed (or never judged the guess) gives its reservation back. */
export async function releaseFactorAttempt(db: Db, attemptId: string): Promise<void> {
  await FactorAttempt.update({ releasedAt: new Date() }, { where: { id: attemptId, releasedAt: null }, transaction: transactionOf(db) });
}

/** Seconds until the window has room again, or null when an attempt is allowed now. */
async function secondsUntilAttemptAllowed(db: Db, identityId: string, policy: AttemptPolicy): Promise<number | null> {
  // Raw SQL: the window arithmetic runs on the database clock.
  const [row] = await selectRows<{ attempts: number; retry_after: number | null }>(
    db,
    `SELECT count(*)::int AS attempts,
            ceil(extract(epoch FROM min(attempted_at) + make_interval(secs => :window) - clock_timestamp()))::int AS retry_after
       FROM (SELECT attempted_at FROM factor_attempts
              WHERE identity_id = :identityId AND released_at IS NULL
                AND attempted_at > clock_timestamp() - make_interval(secs => :window)
              ORDER BY attempted_at DESC LIMIT :limit) recent`,
    { identityId, window: policy.windowSeconds, limit: policy.limit },
  );
  if (!row || row.attempts < policy.limit) return null;
  return Math.max(1, row.retry_after ?? policy.windowSeconds);
}
