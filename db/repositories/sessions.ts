import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { RefreshToken, Session } from '../models';
import type { Tx } from '../connection';

// A session is one refresh-token family. Each refresh token is used once: consuming it is one atomic
// UPDATE ... WHERE consumed_at IS NULL, so of N concurrent refreshes exactly one wins.

export interface SessionMeta {
  ipAddress: string | null;
  userAgent: string | null;
}

export async function insertSession(
  tx: Tx,
  input: { tenantId: string; membershipId: string; absoluteTtlSeconds: number; meta: SessionMeta },
): Promise<{ sessionId: string; expiresAt: Date }> {
  const sessionId = randomUUID();
  const expiresAt = new Date(Date.now() + input.absoluteTtlSeconds * 1000);
  await Session.create(
    {
      tenantId: input.tenantId,
      id: sessionId,
      membershipId: input.membershipId,
      expiresAt,
      ipAddress: input.meta.ipAddress,
      userAgent: input.meta.userAgent?.slice(0, 512) ?? null,
    },
    { transaction: tx },
  );
  return { sessionId, expiresAt };
}

export async function insertRefreshToken(
  tx: Tx,
  input: { tenantId: string; sessionId: string; tokenHash: Buffer; expiresAt: Date },
): Promise<void> {
  await RefreshToken.create({ id: randomUUID(), ...input }, { transaction: tx });
}

export async function tenantOfRefreshToken(db: Sequelize, tokenHash: Buffer): Promise<string | null> {
  const rows = await db.query<{ tenant_id: string | null }>('SELECT app_refresh_token_tenant(:hash) AS tenant_id', {
    replacements: { hash: tokenHash },
    type: QueryTypes.SELECT,
  });
  return rows[0]?.tenant_id ?? null;
}

export interface ConsumedToken {
  sessionId: string;
  membershipId: string;
  identityId: string;
  sessionExpiresAt: Date;
}

/** Consumes a live token of a live session whose membership is active; null when any of that fails. */
export async function consumeRefreshToken(db: Sequelize, tx: Tx, tenantId: string, tokenHash: Buffer): Promise<ConsumedToken | null> {
  const rows = await db.query<{ session_id: string; membership_id: string; identity_id: string; session_expires_at: Date }>(
    `UPDATE refresh_tokens rt SET consumed_at = now()
       FROM sessions s
       JOIN memberships m ON m.tenant_id = s.tenant_id AND m.id = s.membership_id
       JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
      WHERE rt.tenant_id = :tenantId AND rt.token_hash = :tokenHash AND rt.consumed_at IS NULL AND rt.expires_at > now()
        AND s.tenant_id = rt.tenant_id AND s.id = rt.session_id AND s.revoked_at IS NULL AND s.expires_at > now()
        AND m.status = 'ACTIVE' AND m.ended_at IS NULL
      RETURNING rt.session_id, s.membership_id, u.identity_id, s.expires_at AS session_expires_at`,
    { replacements: { tenantId, tokenHash }, type: QueryTypes.SELECT, transaction: tx },
  );
  const row = rows[0];
  return row
    ? { sessionId: row.session_id, membershipId: row.membership_id, identityId: row.identity_id, sessionExpiresAt: new Date(row.session_expires_at) }
    : null;
}

export async function findRefreshToken(
  tx: Tx,
  tenantId: string,
  tokenHash: Buffer,
): Promise<{ sessionId: string; consumed: boolean } | null> {
  const token = await RefreshToken.findOne({ where: { tenantId, tokenHash }, transaction: tx });
  return token ? { sessionId: token.sessionId, consumed: token.consumedAt !== null } : null;
}

/** Ends a session; returns its membership when this call ended it, null when it had already ended. */
export async function revokeSession(db: Sequelize, tx: Tx, tenantId: string, sessionId: string, reason: string): Promise<string | null> {
  const rows = await db.query<{ membership_id: string }>(
    `UPDATE sessions SET revoked_at = now(), revoked_reason = :reason
      WHERE tenant_id = :tenantId AND id = :sessionId AND revoked_at IS NULL
      RETURNING membership_id`,
    { replacements: { tenantId, sessionId, reason }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows[0]?.membership_id ?? null;
}

export async function touchSession(tx: Tx, tenantId: string, sessionId: string, meta: SessionMeta): Promise<void> {
  await Session.update(
    { lastActivityAt: new Date(), ipAddress: meta.ipAddress, userAgent: meta.userAgent?.slice(0, 512) ?? null },
    { where: { tenantId, id: sessionId }, transaction: tx },
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
  db: Sequelize,
  tx: Tx,
  input: { tenantId: string; membershipId: string; limit: number; offset: number },
): Promise<SessionRow[]> {
  const rows = await db.query<{ id: string; created_at: Date; expires_at: Date; last_activity_at: Date; ip_address: string | null; user_agent: string | null }>(
    `SELECT id, created_at, expires_at, last_activity_at, ip_address, user_agent
       FROM sessions
      WHERE tenant_id = :tenantId AND membership_id = :membershipId AND revoked_at IS NULL AND expires_at > now()
      ORDER BY last_activity_at DESC, id
      LIMIT :limit OFFSET :offset`,
    { replacements: input, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.map((r) => ({
    id: r.id,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
    lastActivityAt: new Date(r.last_activity_at),
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
  }));
}

/** Ends a live session of this membership; false when there is none by that id (in this tenant). */
export async function revokeOwnSession(
  db: Sequelize,
  tx: Tx,
  input: { tenantId: string; membershipId: string; sessionId: string },
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE sessions SET revoked_at = now(), revoked_reason = 'REVOKED_BY_USER'
      WHERE tenant_id = :tenantId AND id = :sessionId AND membership_id = :membershipId
        AND revoked_at IS NULL AND expires_at > now()
      RETURNING id`,
    { replacements: input, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.length === 1;
}
