import { Op } from 'sequelize';
import { MagicLink } from '../../models';
import { execute, transactionOf, type Db, type Tx } from '../../connection';

// Magic links (table magic_links): the emailed one-time links of registration and password reset. Serves
// requestMagicLink and requestPasswordReset (their workflows' activities issue the links, or re-send the live
// one under a new token); register and resetPassword consume them (register's through registerWorkflow's
// activity).

export type MagicLinkPurpose = 'REGISTRATION' | 'PASSWORD_RESET';

export interface MagicLinkRow {
  id: string;
  email: string;
  purpose: MagicLinkPurpose;
  expiresAt: Date;
  mailedAt: Date | null;
  supersededAt: Date | null;
  consumedAt: Date | null;
  consumedByAttempt: string | null;
  /** What consuming the link produced (a registration's workspace), answered again to a retry. */
  result: Record<string, string> | null;
}

function rowOf(link: MagicLink | null): MagicLinkRow | null {
  if (!link) return null;
  const { id, email, purpose, expiresAt, mailedAt, supersededAt, consumedAt, consumedByAttempt, result } = link;
  return { id, email, purpose, expiresAt, mailedAt, supersededAt, consumedAt, consumedByAttempt, result };
}

/**
 * One magic-link issuer per email and purpose at a time, until the transaction ends, so "a new request
 * supersedes the old one" holds under races. Raw SQL: a transaction-scoped advisory lock.
 */
export async function lockMagicLinkIssuer(tx: Tx, email: string, purpose: MagicLinkPurpose = 'REGISTRATION'): Promise<void> {
  const key = purpose === 'REGISTRATION' ? `magic-link:${email}` : `password-reset-link:${email}`;
  await execute(tx, 'SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', { key });
}

/** The link a token opens: of any purpose, or only of `purpose`. */
export async function findMagicLinkByToken(db: Db, by: { tokenHash: Buffer; purpose?: MagicLinkPurpose }): Promise<MagicLinkRow | null> {
  const where = by.purpose === undefined ? { tokenHash: by.tokenHash } : { tokenHash: by.tokenHash, purpose: by.purpose };
  return rowOf(await MagicLink.findOne({ where, transaction: transactionOf(db) }));
}

/** By id; `lock` holds the row FOR UPDATE until the transaction ends. */
export async function findMagicLink(db: Db, magicLinkId: string, options: { lock?: boolean } = {}): Promise<MagicLinkRow | null> {
  const tx = transactionOf(db);
  return rowOf(await MagicLink.findByPk(magicLinkId, { transaction: tx, ...(options.lock && tx ? { lock: tx.LOCK.UPDATE } : {}) }));
}

/**
 * The address's live link of `purpose`: mailed, neither consumed nor superseded, not expired (the newest,
 * though a new link supersedes the others, so there is at most one).
 */
export async function findLiveMagicLink(db: Db, email: string, purpose: MagicLinkPurpose): Promise<MagicLinkRow | null> {
  return rowOf(
    await MagicLink.findOne({
      where: { email, purpose, mailedAt: { [Op.ne]: null }, consumedAt: null, supersededAt: null, expiresAt: { [Op.gt]: new Date() } },
      order: [['createdAt', 'DESC']],
      transaction: transactionOf(db),
    }),
  );
}

/** Links issued for the email and purpose since `since` (the per-address hourly limit). */
export async function countMagicLinksSince(db: Db, email: string, input: { purpose: MagicLinkPurpose; since: Date }): Promise<number> {
  return MagicLink.count({ where: { email, purpose: input.purpose, createdAt: { [Op.gt]: input.since } }, transaction: transactionOf(db) });
}

/** A new link supersedes the open ones for the same email and purpose. */
export async function supersedeMagicLinks(db: Db, email: string, purpose: MagicLinkPurpose): Promise<void> {
  await MagicLink.update({ supersededAt: new Date() }, { where: { email, purpose, consumedAt: null, supersededAt: null }, transaction: transactionOf(db) });
}

export async function insertMagicLink(
  db: Db,
  input: { id: string; email: string; purpose: MagicLinkPurpose; tokenHash: Buffer; expiresAt: Date },
): Promise<void> {
  await MagicLink.create(input, { transaction: transactionOf(db) });
}

/**
 * A retry before mailing draws a new token: the stored hash and expiry are replaced. A re-send of a live link
 * replaces the hash only (its expiry given as it was): the newest mail's token is the one that opens it.
 */
export async function replaceMagicLinkToken(db: Db, magicLinkId: string, input: { tokenHash: Buffer; expiresAt: Date }): Promise<void> {
  await MagicLink.update(input, { where: { id: magicLinkId }, transaction: transactionOf(db) });
}

export async function markMagicLinkMailed(db: Db, magicLinkId: string): Promise<void> {
  await MagicLink.update({ mailedAt: new Date() }, { where: { id: magicLinkId }, transaction: transactionOf(db) });
}

/** Single use: consumes an open, unexpired link; false when another request consumed it first (or it lapsed). */
export async function consumeMagicLink(db: Db, magicLinkId: string): Promise<boolean> {
  const [consumed] = await MagicLink.update(
    { consumedAt: new Date() },
    { where: { id: magicLinkId, consumedAt: null, supersededAt: null, expiresAt: { [Op.gt]: new Date() } }, transaction: transactionOf(db) },
  );
  return consumed === 1;
}

/** Consumes a link held FOR UPDATE by its registration, storing what it produced for a retry of the same attempt. */
export async function recordMagicLinkRegistration(
  tx: Tx,
  magicLinkId: string,
  input: { attemptId: string; result: Record<string, string> },
): Promise<void> {
  await MagicLink.update({ consumedAt: new Date(), consumedByAttempt: input.attemptId, result: input.result }, { where: { id: magicLinkId }, transaction: tx });
}
