import { RegistrationAttempt } from '../../models';
import { transactionOf, type Db } from '../../connection';

// A registration attempt (table registration_attempts): what register checked and stored for
// registerWorkflow's activity (the identity it verified, or the hash a new identity gets, and the company).
// Serves register and registerWorkflow's activity. The hash lives only until the workspace is created or
// the request lost.

export interface RegistrationAttemptRow {
  id: string;
  magicLinkId: string;
  existingIdentityId: string | null;
  passwordHash: string | null;
  companyName: string | null;
  companyTaxId: string | null;
  ipAddress: string | null;
}

export async function insertRegistrationAttempt(
  db: Db,
  input: RegistrationAttemptRow & { correlationId: string },
): Promise<void> {
  await RegistrationAttempt.create(input, { transaction: transactionOf(db) });
}

export async function findRegistrationAttempt(db: Db, attemptId: string): Promise<RegistrationAttemptRow | null> {
  const attempt = await RegistrationAttempt.findByPk(attemptId, { transaction: transactionOf(db) });
  if (!attempt) return null;
  const { id, magicLinkId, existingIdentityId, passwordHash, companyName, companyTaxId, ipAddress } = attempt;
  return { id, magicLinkId, existingIdentityId, passwordHash, companyName, companyTaxId, ipAddress };
}

/** The attempt's password hash is gone once used (or once its request lost). */
export async function scrubRegistrationAttempt(db: Db, attemptId: string): Promise<void> {
  await RegistrationAttempt.update({ passwordHash: null }, { where: { id: attemptId }, transaction: transactionOf(db) });
}
