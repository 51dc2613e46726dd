import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { RefreshToken, Session } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';

// A session is one refresh-token family. Each refresh token is used once: consuming it is one atomic
// UPDATE ... WHERE consumed_at IS NULL, so of N concurrent refreshes exactly one wins. Serves login,
// register, acceptInvitation (a new session), refreshSession, logout, listMySessions, revokeMySession,
// stepUpSession (the session's second-factor time), and changePassword and resetPassword (every session
// of the identity ends).

export interface SessionMeta {
  ipAddress: string | null;
  userAgent: string | null;
}

export async function insertSession(
  tx: Db,
  scope: { tenantId: string },
  input: { membershipId: string; absoluteTtlSeconds: number; meta: SessionMeta },
): Promise<{ sessionId: string; expiresAt: Date }> {
  const sessionId = randomUUID();
  const expiresAt = new Date(Date.now() + input.absoluteTtlSeconds * 1000);
  await Session.create(
    {
      tenantId: scope.tenantId,
      id: sessionId,
      membershipId: input.membershipId,
      expiresAt,
      ipAddress: input.meta.ipAddress,
      userAgent: input.meta.userAgent?.slice(0, 512) ?? null,
    },
    { transaction: transactionOf(tx) },
  );
  return { sessionId, expiresAt };
}

export async function insertRefreshToken(
  tx: Db,
  scope: { tenantId: string },
  input: { sessionId: string; tokenHash: Buffer; expiresAt: Date },
): Promise<void> {
  await RefreshToken.create({ id: randomUUID(), tenantId: scope.tenantId, ...input }, { transaction: transactionOf(tx) });
}

/** The workspace of a refresh token (security definer: the tenant is what is being looked up). */
export async function tenantOfRefreshToken(db: Db, tokenHash: Buffer): Promise<string | null> {
  const [row] = await selectRows<{ tenant_id: string | null }>(db, 'SELECT app_refresh_token_tenant(:hash) AS tenant_id', { hash: tokenHash });
  return row?.tenant_id ?? null;
}

export interface ConsumedToken {
  sessionId: string;
  membershipId: string;
  identityId: string;
  sessionExpiresAt: Date;
}

/**
 * Consumes a live token of a live session whose membership is active; null when any of that fails.
 * Raw SQL: one conditional UPDATE joined with session, membership and user is what makes it single-use.
 */
export async function consumeRefreshToken(tx: Db, scope: { tenantId: string }, tokenHash: Buffer): Promise<ConsumedToken | null> {
  const rows = await selectRows<{ session_id: string; membership_id: string; identity_id: string; session_expires_at: Date }>(
    tx,
    `UPDATE refresh_tokens rt SET consumed_at = now()
       FROM sessions s
       JOIN memberships m ON m.tenant_id = s.tenant_id AND m.id = s.membership_id
       JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
      WHERE rt.tenant_id = :tenantId AND rt.token_hash = :tokenHash AND rt.consumed_at IS NULL AND rt.expires_at > now()
        AND s.tenant_id = rt.tenant_id AND s.id = rt.session_id AND s.revoked_at IS NULL AND s.expires_at > now()
        AND m.status = 'ACTIVE' AND m.ended_at IS NULL
      RETURNING rt.session_id, s.membership_id, u.identity_id, s.expires_at AS session_expires_at`,
    { tenantId: scope.tenantId, tokenHash },
  );
  const row = rows[0];
  return row
    ? { sessionId: row.session_id, membershipId: row.membership_id, identityId: row.identity_id, sessionExpiresAt: new Date(row.session_expires_at) }
    : null;
}

export async function findRefreshToken(
  tx: Db,
  scope: { tenantId: string },
  tokenHash: Buffer,
): Promise<{ sessionId: string; consumed: boolean } | null> {
  const token = await RefreshToken.findOne({ where: { tenantId: scope.tenantId, tokenHash }, transaction: transactionOf(tx) });
  return token ? { sessionId: token.sessionId, consumed: token.consumedAt !== null } : null;
}

/** Ends a session; returns its membership when this call ended it, null when it had already ended. */
export async function revokeSession(tx: Db, scope: { tenantId: string }, input: { sessionId: string; reason: string }): Promise<string | null> {
  const [, ended] = await Session.update(
    { revokedAt: new Date(), revokedReason: input.reason },
    { where: { tenantId: scope.tenantId, id: input.sessionId, revokedAt: null }, returning: true, transaction: transactionOf(tx) },
  );
  return ended[0]?.membershipId ?? null;
}

export async function touchSession(tx: Db, scope: { tenantId: string }, input: { sessionId: string; meta: SessionMeta }): Promise<void> {
  await Session.update(
    { lastActivityAt: new Date(), ipAddress: input.meta.ipAddress, userAgent: input.meta.userAgent?.slice(0, 512) ?? null },
    { where: { tenantId: scope.tenantId, id: input.sessionId }, transaction: transactionOf(tx) },
  );
}

export interface SessionRow {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  lastActivityAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
}

/** Live sessions of one membership, most recent activity first; one row more than asked tells hasMore. */
export async function listLiveSessions(
  tx: Db,
  scope: { tenantId: string; membershipId: string },
  page: { limit: number; offset: number },
): Promise<SessionRow[]> {
  const sessions = await Session.findAll({
    where: { tenantId: scope.tenantId, membershipId: scope.membershipId, revokedAt: null, expiresAt: { [Op.gt]: new Date() } },
    order: [['lastActivityAt', 'DESC'], ['id', 'ASC']],
    limit: page.limit,
    offset: page.offset,
    transaction: transactionOf(tx),
  });
  return sessions.map((s) => ({
    id: s.id,
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
    lastActivityAt: s.lastActivityAt,
    ipAddress: s.ipAddress,
    userAgent: s.userAgent,
  }));
}

/** Ends a live session of this membership; false when there is none by that id (in this tenant). */
export async function revokeOwnSession(tx: Db, scope: { tenantId: string; membershipId: string }, sessionId: string): Promise<boolean> {
  const [count] = await Session.update(
    { revokedAt: new Date(), revokedReason: 'REVOKED_BY_USER' },
    {
      where: { tenantId: scope.tenantId, id: sessionId, membershipId: scope.membershipId, revokedAt: null, expiresAt: { [Op.gt]: new Date() } },
      transaction: transactionOf(tx),
    },
  );
  return count === 1;
}

/** Records that the session confirmed a second factor now; returns that time. */
export async function markSecondFactorVerified(tx: Db, scope: { tenantId: string }, sessionId: string): Promise<Date | null> {
  const [, rows] = await Session.update(
    { secondFactorVerifiedAt: new Date() },
    { where: { tenantId: scope.tenantId, id: sessionId, revokedAt: null }, returning: true, transaction: transactionOf(tx) },
  );
  return rows[0]?.secondFactorVerifiedAt ?? null;
}

/** When the session last confirmed a second factor, or null. */
export async function secondFactorVerifiedAt(tx: Db, scope: { tenantId: string }, sessionId: string): Promise<Date | null> {
  const session = await Session.findOne({
    attributes: ['secondFactorVerifiedAt'],
    where: { tenantId: scope.tenantId, id: sessionId },
    transaction: transactionOf(tx),
  });
  return session?.secondFactorVerifiedAt ?? null;
}

/** Ends every live session of the identity in every workspace except `keepSessionId` (security definer: spans tenants). */
export async function revokeIdentitySessions(db: Db, identityId: string, input: { keepSessionId: string | null; reason: string }) {
  return selectRows<{ tenant_id: string; session_id: string; membership_id: string }>(
    db,
    `SELECT * FROM app_revoke_identity_sessions(:identityId, :keep, :reason)`,
    { identityId, keep: input.keepSessionId, reason: input.reason },
  );
}
