import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { Identity, TotpEnrollment } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';
import { revokeRecoveryCodes } from './recovery-codes';

// An identity's authenticator (TOTP): its enrolment (table totp_enrollments), its secret and last used
// step (on identities). Serves setupTotp, confirmTotp and disableTotp, and login, stepUpSession,
// resetPassword and disableTotp (a code spent once). Raw SQL where a conditional write decides a race
// (the enrolment confirmed once).

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

/** Turns the authenticator off; its recovery codes die with it. */
export async function disableTotp(db: Db, identityId: string): Promise<boolean> {
  const [count] = await Identity.update(
    { totpSecretEncrypted: null, totpEnabledAt: null, totpLastStep: null, updatedAt: new Date() },
    { where: { id: identityId, totpSecretEncrypted: { [Op.ne]: null } }, transaction: transactionOf(db) },
  );
  await revokeRecoveryCodes(db, identityId);
  return count === 1;
}
