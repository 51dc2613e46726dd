import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Tx } from '../connection';

// Second-factor state of a global identity. Not tenant-scoped: callers may run these inside a tenant
// transaction (so an audit event commits with them) or on their own.

export type AttemptKind = 'EMAIL_CODE' | 'TOTP' | 'RECOVERY_CODE' | 'CURRENT_PASSWORD';

export interface FactorState {
  emailFactorEnabled: boolean;
  totpSecretEncrypted: string | null;
  totpLastStep: number | null;
  recoveryCodesRemaining: number;
}

export interface AttemptPolicy {
  limit: number;
  windowSeconds: number;
}

const q = <T extends object>(db: Sequelize, sql: string, replacements: Record<string, unknown>, transaction?: Tx | null) =>
  db.query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: transaction ?? undefined });

export async function loadFactorState(db: Sequelize, identityId: string, tx?: Tx): Promise<FactorState> {
  const [row] = await q<{ email_factor_enabled: boolean; totp_secret_encrypted: string | null; totp_last_step: string | null; remaining: number }>(
    db,
    `SELECT i.email_factor_enabled, i.totp_secret_encrypted, i.totp_last_step,
            (SELECT count(*)::int FROM recovery_codes r
              WHERE r.identity_id = i.id AND r.used_at IS NULL AND r.revoked_at IS NULL) AS remaining
       FROM identities i WHERE i.id = :identityId`,
    { identityId },
    tx,
  );
  if (!row) throw new Error(`identity ${identityId} not found`);
  return {
    emailFactorEnabled: row.email_factor_enabled,
    totpSecretEncrypted: row.totp_secret_encrypted,
    totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
    recoveryCodesRemaining: row.totp_secret_encrypted ? row.remaining : 0,
  };
}

/**
 * Counts one factor attempt against the identity's window, or answers how many seconds until the next
 * is allowed. Serialised per identity with a transaction-scoped advisory lock, so N concurrent requests
 * from any number of API processes admit at most `limit`.
 */
export async function takeFactorAttempt(db: Sequelize, identityId: string, kind: AttemptKind, policy: AttemptPolicy): Promise<number | null> {
  return db.transaction(async (tx) => {
    await q(db, `SELECT pg_advisory_xact_lock(hashtextextended(:identityId, 6238))`, { identityId }, tx);
    const retryAfter = await secondsUntilAttemptAllowed(db, identityId, policy, tx);
    if (retryAfter !== null) return retryAfter;
    await db.query(`INSERT INTO factor_attempts (identity_id, kind) VALUES (:identityId, :kind)`, {
      replacements: { identityId, kind },
      transaction: tx,
    });
    return null;
  });
}

/** Seconds until the window has room again, or null when an attempt is allowed now. */
export async function secondsUntilAttemptAllowed(db: Sequelize, identityId: string, policy: AttemptPolicy, tx?: Tx): Promise<number | null> {
  const [row] = await q<{ attempts: number; retry_after: number | null }>(
    db,
    `SELECT count(*)::int AS attempts,
            ceil(extract(epoch FROM min(attempted_at) + make_interval(secs => :window) - clock_timestamp()))::int AS retry_after
       FROM (SELECT attempted_at FROM factor_attempts
              WHERE identity_id = :identityId AND attempted_at > clock_timestamp() - make_interval(secs => :window)
              ORDER BY attempted_at DESC LIMIT :limit) recent`,
    { identityId, window: policy.windowSeconds, limit: policy.limit },
    tx,
  );
  if (!row || row.attempts < policy.limit) return null;
  return Math.max(1, row.retry_after ?? policy.windowSeconds);
}

/** Records a failed current-password check; those count against the same window as factor codes. */
export async function recordFailedAttempt(db: Sequelize, identityId: string, kind: AttemptKind): Promise<void> {
  await db.query(`INSERT INTO factor_attempts (identity_id, kind) VALUES (:identityId, :kind)`, { replacements: { identityId, kind } });
}

/** Spends a TOTP step: true only when it is later than every step used before (single use, RFC 6238 §5.2). */
export async function spendTotpStep(db: Sequelize, identityId: string, step: number, tx?: Tx): Promise<boolean> {
  const rows = await q<{ id: string }>(
    db,
    `UPDATE identities SET totp_last_step = :step
      WHERE id = :identityId AND totp_secret_encrypted IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < :step)
      RETURNING id`,
    { identityId, step },
    tx,
  );
  return rows.length === 1;
}

export async function createTotpEnrollment(db: Sequelize, input: { identityId: string; secretEncrypted: string; ttlSeconds: number }) {
  const id = randomUUID();
  const [row] = await q<{ expires_at: Date }>(
    db,
    `INSERT INTO totp_enrollments (id, identity_id, secret_encrypted, expires_at)
     VALUES (:id, :identityId, :secretEncrypted, now() + make_interval(secs => :ttl)) RETURNING expires_at`,
    { id, identityId: input.identityId, secretEncrypted: input.secretEncrypted, ttl: input.ttlSeconds },
  );
  return { enrollmentId: id, expiresAt: row!.expires_at };
}

export async function findPendingEnrollment(db: Sequelize, identityId: string, enrollmentId: string): Promise<string | null> {
  const [row] = await q<{ secret_encrypted: string }>(
    db,
    `SELECT secret_encrypted FROM totp_enrollments
      WHERE id = :enrollmentId AND identity_id = :identityId AND confirmed_at IS NULL AND expires_at > now()`,
    { enrollmentId, identityId },
  );
  return row?.secret_encrypted ?? null;
}

/** Turns the enrolment into the identity's authenticator, once; the confirming step counts as used. */
export async function confirmTotpEnrollment(db: Sequelize, tx: Tx, input: { identityId: string; enrollmentId: string; step: number }): Promise<boolean> {
  const claimed = await q<{ secret_encrypted: string }>(
    db,
    `UPDATE totp_enrollments SET confirmed_at = now()
      WHERE id = :enrollmentId AND identity_id = :identityId AND confirmed_at IS NULL AND expires_at > now()
      RETURNING secret_encrypted`,
    input,
    tx,
  );
  if (claimed.length !== 1) return false;
  const enabled = await q<{ id: string }>(
    db,
    `UPDATE identities SET totp_secret_encrypted = :secret, totp_enabled_at = now(), totp_last_step = :step, updated_at = now()
      WHERE id = :identityId AND totp_secret_encrypted IS NULL RETURNING id`,
    { identityId: input.identityId, secret: claimed[0]!.secret_encrypted, step: input.step },
    tx,
  );
  return enabled.length === 1;
}

export async function disableTotp(db: Sequelize, tx: Tx, identityId: string): Promise<boolean> {
  const rows = await q<{ id: string }>(
    db,
    `UPDATE identities SET totp_secret_encrypted = NULL, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = now()
      WHERE id = :identityId AND totp_secret_encrypted IS NOT NULL RETURNING id`,
    { identityId },
    tx,
  );
  await revokeRecoveryCodes(db, tx, identityId);
  return rows.length === 1;
}

export async function setEmailFactor(db: Sequelize, tx: Tx, identityId: string, enabled: boolean): Promise<boolean> {
  const rows = await q<{ id: string }>(
    db,
    `UPDATE identities SET email_factor_enabled = :enabled, updated_at = now()
      WHERE id = :identityId AND email_factor_enabled <> :enabled RETURNING id`,
    { identityId, enabled },
    tx,
  );
  return rows.length === 1;
}

async function revokeRecoveryCodes(db: Sequelize, tx: Tx, identityId: string): Promise<void> {
  await db.query(`UPDATE recovery_codes SET revoked_at = now() WHERE identity_id = :identityId AND used_at IS NULL AND revoked_at IS NULL`, {
    replacements: { identityId },
    transaction: tx,
  });
}

/** The old set dies as the new one is stored, in one transaction. */
export async function replaceRecoveryCodes(db: Sequelize, tx: Tx, identityId: string, hashes: string[]): Promise<void> {
  await revokeRecoveryCodes(db, tx, identityId);
  for (const hash of hashes) {
    await db.query(`INSERT INTO recovery_codes (id, identity_id, code_hash) VALUES (:id, :identityId, :hash)`, {
      replacements: { id: randomUUID(), identityId, hash },
      transaction: tx,
    });
  }
}

export async function liveRecoveryCodes(db: Sequelize, identityId: string): Promise<Array<{ id: string; codeHash: string }>> {
  const rows = await q<{ id: string; code_hash: string }>(
    db,
    `SELECT id, code_hash FROM recovery_codes WHERE identity_id = :identityId AND used_at IS NULL AND revoked_at IS NULL`,
    { identityId },
  );
  return rows.map((r) => ({ id: r.id, codeHash: r.code_hash }));
}

/** Marks a recovery code used; false when another request used it first. */
export async function spendRecoveryCode(db: Sequelize, codeId: string, tx?: Tx): Promise<boolean> {
  const rows = await q<{ id: string }>(
    db,
    `UPDATE recovery_codes SET used_at = now() WHERE id = :codeId AND used_at IS NULL AND revoked_at IS NULL RETURNING id`,
    { codeId },
    tx,
  );
  return rows.length === 1;
}

/** Stores the challenge's sealed code unless one exists; returns whichever is stored. */
export async function storeChallengeCode(db: Sequelize, input: { challengeId: string; identityId: string; codeEncrypted: string }): Promise<string> {
  await db.query(
    `INSERT INTO email_challenge_codes (challenge_id, identity_id, code_encrypted) VALUES (:challengeId, :identityId, :codeEncrypted)
     ON CONFLICT (challenge_id) DO NOTHING`,
    { replacements: input },
  );
  const [row] = await q<{ code_encrypted: string }>(db, `SELECT code_encrypted FROM email_challenge_codes WHERE challenge_id = :challengeId`, input);
  return row!.code_encrypted;
}

export async function deleteChallengeCode(db: Sequelize, challengeId: string): Promise<void> {
  await db.query(`DELETE FROM email_challenge_codes WHERE challenge_id = :challengeId`, { replacements: { challengeId } });
}

export async function identityEmail(db: Sequelize, identityId: string): Promise<string | null> {
  const [row] = await q<{ email: string }>(db, `SELECT email FROM identities WHERE id = :identityId`, { identityId });
  return row?.email ?? null;
}

export async function updatePasswordHash(db: Sequelize, tx: Tx, identityId: string, passwordHash: string): Promise<void> {
  await db.query(`UPDATE identities SET password_hash = :passwordHash, updated_at = now() WHERE id = :identityId`, {
    replacements: { identityId, passwordHash },
    transaction: tx,
  });
}

/** Ends every live session of the identity in every workspace except `keepSessionId`. */
export async function revokeIdentitySessions(db: Sequelize, tx: Tx, identityId: string, keepSessionId: string | null, reason: string) {
  return q<{ tenant_id: string; session_id: string; membership_id: string }>(
    db,
    `SELECT * FROM app_revoke_identity_sessions(:identityId, :keep, :reason)`,
    { identityId, keep: keepSessionId, reason },
    tx,
  );
}
