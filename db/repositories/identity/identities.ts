import { randomUUID } from 'node:crypto';
import { Identity } from '../../models';
import { transactionOf, type Db } from '../../connection';

// Global identities (table identities): one per email, across workspaces. Serves login, register,
// resetPassword, acceptInvitation, changePassword and the /me/security operations (the caller's identity),
// the activities of registerWorkflow and acceptInvitationWorkflow (the identity a workspace or membership
// is opened for) and of requestPasswordResetWorkflow and emailChallengeWorkflow (an identity's address).

/** The identity as a use case reads it: its address, password hash and second-factor settings. */
export interface IdentityRow {
  id: string;
  email: string;
  passwordHash: string;
  emailFactorEnabled: boolean;
  totpSecretEncrypted: string | null;
}

function rowOf(identity: Identity | null): IdentityRow | null {
  if (!identity) return null;
  const { id, email, passwordHash, emailFactorEnabled, totpSecretEncrypted } = identity;
  return { id, email, passwordHash, emailFactorEnabled, totpSecretEncrypted };
}

export async function findIdentityById(db: Db, identityId: string): Promise<IdentityRow | null> {
  return rowOf(await Identity.findByPk(identityId, { transaction: transactionOf(db) }));
}

/** `email` as stored: normalised (core/identity/email.ts). */
export async function findIdentityByEmail(db: Db, email: string): Promise<IdentityRow | null> {
  return rowOf(await Identity.findOne({ where: { email }, transaction: transactionOf(db) }));
}

export async function identityIdByEmail(db: Db, email: string): Promise<string | null> {
  const identity = await Identity.findOne({ where: { email }, attributes: ['id'], transaction: transactionOf(db) });
  return identity?.id ?? null;
}

export async function identityEmail(db: Db, identityId: string): Promise<string | null> {
  const identity = await Identity.findByPk(identityId, { attributes: ['email'], transaction: transactionOf(db) });
  return identity?.email ?? null;
}

export async function updatePasswordHash(db: Db, identityId: string, passwordHash: string): Promise<void> {
  await Identity.update({ passwordHash, updatedAt: new Date() }, { where: { id: identityId }, transaction: transactionOf(db) });
}

/**
 * The same password's hash made anew (a stronger or newer scheme), stored only while the stored one is still
 * `previous`: a password changed meanwhile is left as it is. True when it was replaced.
 */
export async function rehashPassword(db: Db, identityId: string, previous: string, next: string): Promise<boolean> {
  const [count] = await Identity.update({ passwordHash: next }, { where: { id: identityId, passwordHash: previous }, transaction: transactionOf(db) });
  return count === 1;
}

/**
 * The identity a registration or an accepted invitation joins, decided in the caller's transaction from
 * what the request checked and stored: the existing identity whose password it verified, or a new one
 * created with the hash it stored.
 * - `identity-changed`: the request verified an identity that is no longer the one at this address;
 * - `unverified`: an identity appeared after the request checked (its password was never verified), or
 *   there is no stored hash to create one from.
 */
export async function identityToJoin(
  tx: Db,
  email: string,
  checked: { existingIdentityId: string | null; passwordHash: string | null },
): Promise<{ identityId: string } | { refused: 'identity-changed' | 'unverified' }> {
  const existing = await identityIdByEmail(tx, email);
  if (checked.existingIdentityId) {
    return existing === checked.existingIdentityId ? { identityId: existing } : { refused: 'identity-changed' };
  }
  if (existing || !checked.passwordHash) return { refused: 'unverified' };
  const identityId = randomUUID();
  await Identity.create({ id: identityId, email, passwordHash: checked.passwordHash }, { transaction: transactionOf(tx) });
  return { identityId };
}
