import { Identity } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';

// Which second factors an identity has on (on identities, with its live recovery codes). Serves
// getSecurityStatus and the operations that answer it, and confirmEmailFactorSetting (email codes on/off).

export interface FactorState {
  emailFactorEnabled: boolean;
  totpSecretEncrypted: string | null;
  recoveryCodesRemaining: number;
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

/** Turns email codes on or off; false when they already were. */
export async function setEmailFactor(db: Db, identityId: string, enabled: boolean): Promise<boolean> {
  const [count] = await Identity.update(
    { emailFactorEnabled: enabled, updatedAt: new Date() },
    { where: { id: identityId, emailFactorEnabled: !enabled }, transaction: transactionOf(db) },
  );
  return count === 1;
}
