import { execute, type Tx } from '../../connection';

// Magic links (table magic_links): the emailed one-time links of registration and password reset. Serves
// requestMagicLink and requestPasswordReset (their workflows' activities issue the links); register and
// resetPassword consume them.

/**
 * One magic-link issuer per email and purpose at a time, until the transaction ends, so "a new request
 * supersedes the old one" holds under races. Raw SQL: a transaction-scoped advisory lock.
 */
export async function lockMagicLinkIssuer(tx: Tx, email: string, purpose: 'REGISTRATION' | 'PASSWORD_RESET' = 'REGISTRATION'): Promise<void> {
  const key = purpose === 'REGISTRATION' ? `magic-link:${email}` : `password-reset-link:${email}`;
  await execute(tx, 'SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', { key });
}
