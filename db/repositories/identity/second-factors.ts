import { randomUUID } from 'node:crypto';
import { Op, type Sequelize } from 'sequelize';
import { EmailChallengeCode, FactorAttempt, Identity, RecoveryCode, TotpEnrollment } from '../../models';
import { execute, selectRows, transactionOf, type Db } from '../../connection';

// Second-factor state of a global identity. Not tenant-scoped: callers run these inside a tenant
// transaction (so an audit event commits with them) or on the pool. Every function takes the identity id
// as its scope. Raw SQL stays where a conditional write decides a race (single use of a TOTP step, an
// enrolment, the attempt window under its advisory lock).

export type AttemptKind = 'EMAIL_CODE' | 'TOTP' | 'RECOVERY_CODE' | 'CURRENT_PASSWORD';

export interface FactorState {
  emailFactorEnabled: boolean;
  totpSecretEncrypted: string | null;
  recoveryCodesRemaining: number;
}

export interface AttemptPolicy {
  limit: number;
  windowSeconds: number;
}

export async function loadFactorState(db: Db, identityId: string): Promise<FactorState> {
  // Raw SQL: the identity and its live recovery codes in one round trip.
  const [row] = await selectRows<{ email_factor_enabled: boolean; totp_secret_encrypted: string | null; remaining: number }>(
    db,
    `SELECT i.email_factor_enabled, i.totp_secret_encrypted,
            (SELECT count(*)::int FROM recovery_codes r
              WHERE r.identity_id = i.id AND r.used_at IS NULL AND r.revoked_at IS NULL) AS remaining
       FROM identities i WHERE i.id = :identityId`,
    { identityId },
  );
  if (!row) throw new Error(`identity ${identityId} not found`);
  return {
    emailFactorEnabled: row.email_factor_enabled,
    totpSecretEncrypted: row.totp_secret_encrypted,
    recoveryCodesRemaining: row.totp_secret_encrypted ? row.remaining : 0,
  };
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

/** Spends a TOTP step: true only when it is later than every step used before (single use, RFC 6238 §5.2). */
export async function spendTotpStep(db: Db, identityId: string, step: number): Promise<boolean> {
  const [count] = await Identity.update(
    { totpLastStep: String(step) },
    {
      where: {
        id: identityId,
        totpSecretEncrypted: { [Op.ne]: null },
        [Op.or]: [{ totpLastStep: null }, { totpLastStep: { [Op.lt]: step } }],
      },
      transaction: transactionOf(db),
    },
  );
  return count === 1;
}

export async function createTotpEnrollment(db: Db, identityId: string, input: { secretEncrypted: string; ttlSeconds: number }) {
  const enrollment = await TotpEnrollment.create(
    { id: randomUUID(), identityId, secretEncrypted: input.secretEncrypted, expiresAt: new Date(Date.now() + input.ttlSeconds * 1000) },
    { transaction: transactionOf(db) },
  );
  return { enrollmentId: enrollment.id, expiresAt: enrollment.expiresAt };
}

export async function findPendingEnrollment(db: Db, identityId: string, enrollmentId: string): Promise<string | null> {
  const enrollment = await TotpEnrollment.findOne({
    attributes: ['secretEncrypted'],
    where: { id: enrollmentId, identityId, confirmedAt: null, expiresAt: { [Op.gt]: new Date() } },
    transaction: transactionOf(db),
  });
  return enrollment?.secretEncrypted ?? null;
}

/** Turns the enrolment into the identity's authenticator, once; the confirming step counts as used. */
export async function confirmTotpEnrollment(db: Db, identityId: string, input: { enrollmentId: string; step: number }): Promise<boolean> {
  // Raw SQL: each conditional UPDATE ... RETURNING claims its row once, whatever races it.
  const claimed = await selectRows<{ secret_encrypted: string }>(
    db,
    `UPDATE totp_enrollments SET confirmed_at = now()
      WHERE id = :enrollmentId AND identity_id = :identityId AND confirmed_at IS NULL AND expires_at > now()
      RETURNING secret_encrypted`,
    { identityId, enrollmentId: input.enrollmentId },
  );
  if (claimed.length !== 1) return false;
  const enabled = await selectRows<{ id: string }>(
    db,
    `UPDATE identities SET totp_secret_encrypted = :secret, totp_enabled_at = now(), totp_last_step = :step, updated_at = now()
      WHERE id = :identityId AND totp_secret_encrypted IS NULL RETURNING id`,
    { identityId, secret: claimed[0]!.secret_encrypted, step: input.step },
  );
  return enabled.length === 1;
}

export async function disableTotp(db: Db, identityId: string): Promise<boolean> {
  const [count] = await Identity.update(
    { totpSecretEncrypted: null, totpEnabledAt: null, totpLastStep: null, updatedAt: new Date() },
    { where: { id: identityId, totpSecretEncrypted: { [Op.ne]: null } }, transaction: transactionOf(db) },
  );
  await revokeRecoveryCodes(db, identityId);
  return count === 1;
}

export async function setEmailFactor(db: Db, identityId: string, enabled: boolean): Promise<boolean> {
  const [count] = await Identity.update(
    { emailFactorEnabled: enabled, updatedAt: new Date() },
    { where: { id: identityId, emailFactorEnabled: !enabled }, transaction: transactionOf(db) },
  );
  return count === 1;
}

async function revokeRecoveryCodes(db: Db, identityId: string): Promise<void> {
  await RecoveryCode.update({ revokedAt: new Date() }, { where: { identityId, usedAt: null, revokedAt: null }, transaction: transactionOf(db) });
}

/** The old set dies as the new one is stored, in one transaction. */
export async function replaceRecoveryCodes(db: Db, identityId: string, hashes: string[]): Promise<void> {
  await revokeRecoveryCodes(db, identityId);
  await RecoveryCode.bulkCreate(
    hashes.map((codeHash) => ({ id: randomUUID(), identityId, codeHash })),
    { transaction: transactionOf(db) },
  );
}

export async function liveRecoveryCodes(db: Db, identityId: string): Promise<Array<{ id: string; codeHash: string }>> {
  const codes = await RecoveryCode.findAll({ attributes: ['id', 'codeHash'], where: { identityId, usedAt: null, revokedAt: null }, transaction: transactionOf(db) });
  return codes.map((c) => ({ id: c.id, codeHash: c.codeHash }));
}

/** Marks a recovery code used; false when another request used it first. */
export async function spendRecoveryCode(db: Db, identityId: string, codeId: string): Promise<boolean> {
  const [count] = await RecoveryCode.update(
    { usedAt: new Date() },
    { where: { id: codeId, identityId, usedAt: null, revokedAt: null }, transaction: transactionOf(db) },
  );
  return count === 1;
}

/** Stores the challenge's sealed code unless one exists; returns whichever is stored. */
export async function storeChallengeCode(db: Db, identityId: string, input: { challengeId: string; codeEncrypted: string }): Promise<string> {
  // Raw SQL: ON CONFLICT DO NOTHING keeps the first code when a retried activity races the first attempt.
  await execute(
    db,
    `INSERT INTO email_challenge_codes (challenge_id, identity_id, code_encrypted) VALUES (:challengeId, :identityId, :codeEncrypted)
     ON CONFLICT (challenge_id) DO NOTHING`,
    { identityId, ...input },
  );
  const stored = await EmailChallengeCode.findByPk(input.challengeId, { transaction: transactionOf(db) });
  return stored!.codeEncrypted;
}

export async function deleteChallengeCode(db: Db, challengeId: string): Promise<void> {
  await EmailChallengeCode.destroy({ where: { challengeId }, transaction: transactionOf(db) });
}

export async function identityEmail(db: Db, identityId: string): Promise<string | null> {
  const identity = await Identity.findByPk(identityId, { attributes: ['email'], transaction: transactionOf(db) });
  return identity?.email ?? null;
}

export async function updatePasswordHash(db: Db, identityId: string, passwordHash: string): Promise<void> {
  await Identity.update({ passwordHash, updatedAt: new Date() }, { where: { id: identityId }, transaction: transactionOf(db) });
}

/** Ends every live session of the identity in every workspace except `keepSessionId` (security definer: spans tenants). */
export async function revokeIdentitySessions(db: Db, identityId: string, input: { keepSessionId: string | null; reason: string }) {
  return selectRows<{ tenant_id: string; session_id: string; membership_id: string }>(
    db,
    `SELECT * FROM app_revoke_identity_sessions(:identityId, :keep, :reason)`,
    { identityId, keep: input.keepSessionId, reason: input.reason },
  );
}
