import { execute, type Tx } from '../../connection';

/**
 * One proof issuer per email at a time, until the transaction ends, so "a new request supersedes the old
 * one" holds under races. Raw SQL: a transaction-scoped advisory lock.
 */
export async function lockProofIssuer(tx: Tx, email: string, purpose: 'REGISTRATION' | 'PASSWORD_RESET' = 'REGISTRATION'): Promise<void> {
  const key = purpose === 'REGISTRATION' ? `registration-proof:${email}` : `password-reset-proof:${email}`;
  await execute(tx, 'SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', { key });
}
