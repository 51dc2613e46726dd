import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt, { type JwtPayload } from 'jsonwebtoken';

// Access tokens: HS256 only (pinned), a known `kid`, `typ: at+jwt` (RFC 9068), our issuer and audience.
// They carry ids, never roles: permissions are read from the database on every request.

/** A signing key: the first of the settings' keys signs, all of them verify (rotation). */
export interface JwtKey {
  kid: string;
  secret: Buffer;
}

export interface AccessTokenSettings {
  issuer: string;
  audience: string;
  keys: JwtKey[];
  accessTokenTtlSeconds: number;
}

export interface AccessClaims {
  tenantId: string;
  membershipId: string;
  sessionId: string;
  identityId: string;
}

const ALGORITHM = 'HS256';
const TYP = 'at+jwt';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * How far ahead of this server's clock another API process's clock may be: a token issued (`iat`) or valid
 * from (`nbf`) further in the future than this was not issued by a process of ours with a sound clock.
 */
export const CLOCK_SKEW_SECONDS = 30;

export interface AccessTokenIssuer {
  sign(claims: AccessClaims): string;
  /** Returns the claims, or null for any token that is not ours, valid and current. */
  verify(token: string): AccessClaims | null;
}

export function createAccessTokenIssuer(config: AccessTokenSettings): AccessTokenIssuer {
  // KeyObjects built once: handing jsonwebtoken raw secrets makes it build one per call.
  const keysById = new Map<string, KeyObject>(config.keys.map((k) => [k.kid, createSecretKey(k.secret)]));
  const signingKey = { kid: config.keys[0].kid, secret: keysById.get(config.keys[0].kid)! };
  return {
    sign(claims) {
      return jwt.sign(
        { tenant_id: claims.tenantId, sid: claims.sessionId, gid: claims.identityId },
        signingKey.secret,
        {
          algorithm: ALGORITHM,
          keyid: signingKey.kid,
          header: { alg: ALGORITHM, typ: TYP, kid: signingKey.kid },
          subject: claims.membershipId,
          jwtid: randomUUID(),
          issuer: config.issuer,
          audience: config.audience,
          expiresIn: config.accessTokenTtlSeconds,
        },
      );
    },
    verify(token) {
      const decoded = jwt.decode(token, { complete: true });
      if (!decoded || typeof decoded.payload === 'string') return null;
      const { header } = decoded;
      if (header.alg !== ALGORITHM || header.typ !== TYP || !header.kid) return null;
      const secret = keysById.get(header.kid);
      if (!secret) return null;
      let payload: JwtPayload;
      try {
        payload = jwt.verify(token, secret, {
          algorithms: [ALGORITHM],
          issuer: config.issuer,
          audience: config.audience,
          // Issued no longer ago than an access token lives (and so with an iat at all).
          maxAge: config.accessTokenTtlSeconds,
          // nbf is checked below with the same clock skew as iat (the library's tolerance would stretch exp too).
          ignoreNotBefore: true,
        }) as JwtPayload;
      } catch {
        return null;
      }
      // A token that never expires, or lives longer than ours do, was not issued by us.
      if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return null;
      if (payload.exp - payload.iat > config.accessTokenTtlSeconds) return null;
      // Nor one issued, or valid only from, later than now (give or take the clock skew).
      const latest = Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS;
      if (payload.iat > latest) return null;
      if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > latest)) return null;
      const { tenant_id: tenantId, sid: sessionId, gid: identityId, sub: membershipId } = payload;
      if (![tenantId, sessionId, identityId, membershipId].every((v) => typeof v === 'string' && UUID.test(v))) return null;
      return { tenantId, sessionId, identityId, membershipId } as AccessClaims;
    },
  };
}
