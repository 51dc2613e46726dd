import { randomUUID } from 'node:crypto';
import { RecoveryCode } from '../../models';
import { transactionOf, type Db } from '../../connection';

// The recovery codes of an identity's authenticator (table recovery_codes), stored as salted hashes.
// Serves confirmTotp and regenerateRecoveryCodes (a new set), disableTotp (the set dies with the
// authenticator), and login, stepUpSession and resetPassword (a code spent once).

/** Revokes every live code of the identity. */
export async function revokeRecoveryCodes(db: Db, identityId: string): Promise<void> {
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
