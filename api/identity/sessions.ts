import { recordLastLogin } from '../../db/repositories/organisation/users';
import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import {
  consumeRefreshToken,
  findRefreshToken,
  insertRefreshToken,
  insertSession,
  revokeSession,
  tenantOfRefreshToken,
  touchSession,
} from '../../db/repositories/identity/sessions';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { newOpaqueToken, sha256 } from '../../core/identity/secrets';
import { AppError } from '../../core/shared/problems';
import type { AccessTokenIssuer } from '../../core/identity/access-tokens';
import type { Config } from '../../runtime/config';
import type { Tx } from '../../db/connection';
import type { RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';

export type TokenPair = Schemas['TokenResponse'];

export interface SessionServiceDeps {
  db: Sequelize;
  tokens: AccessTokenIssuer;
  sessions: Config['sessions'];
}

export type SessionService = ReturnType<typeof createSessionService>;

export function createSessionService({ db, tokens, sessions }: SessionServiceDeps) {
  const refreshExpiry = (sessionExpiresAt: Date) =>
    new Date(Math.min(Date.now() + sessions.refreshIdleTtlSeconds * 1000, sessionExpiresAt.getTime()));

  /** Opens a new session (token family) inside the caller's tenant transaction and returns its first pair. */
  async function open(
    tx: Tx,
    who: { tenantId: string; membershipId: string; identityId: string },
    ctx: RequestContext,
  ): Promise<TokenPair> {
    const meta = { ipAddress: ctx.ipAddress, userAgent: ctx.userAgent };
    const { sessionId, expiresAt } = await insertSession(tx, { tenantId: who.tenantId }, {
      membershipId: who.membershipId,
      absoluteTtlSeconds: sessions.refreshAbsoluteTtlSeconds,
      meta,
    });
    const refreshToken = newOpaqueToken();
    await insertRefreshToken(tx, { tenantId: who.tenantId }, { sessionId, tokenHash: sha256(refreshToken), expiresAt: refreshExpiry(expiresAt) });
    return { accessToken: tokens.sign({ ...who, sessionId }), refreshToken };
  }

  async function refreshSession(refreshToken: string, ctx: RequestContext): Promise<TokenPair> {
    const tokenHash = sha256(refreshToken);
    const tenantId = await tenantOfRefreshToken(db, tokenHash);
    if (!tenantId) throw new AppError('invalid-refresh-token');
    const outcome = await withTenant(db, tenantId, async (tx) => {
      const consumed = await consumeRefreshToken(tx, { tenantId }, tokenHash);
      if (consumed) {
        const next = newOpaqueToken();
        await insertRefreshToken(tx, { tenantId }, {
          sessionId: consumed.sessionId,
          tokenHash: sha256(next),
          expiresAt: refreshExpiry(consumed.sessionExpiresAt),
        });
        await touchSession(tx, { tenantId }, { sessionId: consumed.sessionId, meta: { ipAddress: ctx.ipAddress, userAgent: ctx.userAgent } });
        await recordLastLogin(tx, { tenantId }, consumed.identityId);
        const accessToken = tokens.sign({ tenantId, membershipId: consumed.membershipId, identityId: consumed.identityId, sessionId: consumed.sessionId });
        return { pair: { accessToken, refreshToken: next } };
      }
      const known = await findRefreshToken(tx, { tenantId }, tokenHash);
      if (known?.consumed) {
        // Replay of a used token: someone else may hold the family. End it, newest token included.
        const membershipId = await revokeSession(tx, { tenantId }, { sessionId: known.sessionId, reason: 'REFRESH_TOKEN_REUSE' });
        if (membershipId) {
          await recordAuditEvent(tx, { tenantId }, {
            action: 'auth.refresh-token.reused',
            actorMembershipId: membershipId,
            systemActor: true,
            correlationId: ctx.correlationId,
            subjectType: 'SESSION',
            subjectId: known.sessionId,
            ipAddress: ctx.ipAddress,
          });
        }
      }
      return { pair: null };
    });
    // The revocation above has committed before the caller hears "no".
    if (!outcome.pair) throw new AppError('invalid-refresh-token');
    return outcome.pair;
  }

  /** Ends the token's session. Unknown or dead tokens end nothing and answer the same. */
  async function logout(refreshToken: string, ctx: RequestContext): Promise<void> {
    const tokenHash = sha256(refreshToken);
    const tenantId = await tenantOfRefreshToken(db, tokenHash);
    if (!tenantId) return;
    await withTenant(db, tenantId, async (tx) => {
      const known = await findRefreshToken(tx, { tenantId }, tokenHash);
      if (!known) return;
      const membershipId = await revokeSession(tx, { tenantId }, { sessionId: known.sessionId, reason: known.consumed ? 'REFRESH_TOKEN_REUSE' : 'LOGOUT' });
      if (membershipId) {
        await recordAuditEvent(tx, { tenantId }, {
          action: known.consumed ? 'auth.refresh-token.reused' : 'auth.logout',
          actorMembershipId: membershipId,
          systemActor: known.consumed,
          correlationId: ctx.correlationId,
          subjectType: 'SESSION',
          subjectId: known.sessionId,
          ipAddress: ctx.ipAddress,
        });
      }
    });
  }

  return { open, refreshSession, logout };
}
