import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createAccessTokenIssuer } from '../../../core/access-tokens';
import { loadConfig } from '../../../core/config';

const config = loadConfig({ NODE_ENV: 'test' }).jwt;
const issuer = createAccessTokenIssuer(config);
const claims = { tenantId: randomUUID(), membershipId: randomUUID(), sessionId: randomUUID(), identityId: randomUUID() };
const key = config.keys[0]!;

/** A token signed with our own key, header and claims, with the lifetime fields given. */
function forge(lifetime: { iat?: number; exp?: number }): string {
  const payload: Record<string, unknown> = { tenant_id: claims.tenantId, sid: claims.sessionId, gid: claims.identityId, sub: claims.membershipId, iss: config.issuer, aud: config.audience, ...lifetime };
  return jwt.sign(payload, key.secret, { algorithm: 'HS256', header: { alg: 'HS256', typ: 'at+jwt', kid: key.kid }, noTimestamp: lifetime.iat === undefined });
}

const now = () => Math.floor(Date.now() / 1000);

describe('access tokens', () => {
  test('a token we issued verifies to its claims', () => {
    expect(issuer.verify(issuer.sign(claims))).toEqual(claims);
    expect(issuer.verify(forge({ iat: now(), exp: now() + config.accessTokenTtlSeconds }))).toEqual(claims);
  });

  test('"access tokens without exp are accepted" no more: no exp, or no iat, is refused', () => {
    expect(issuer.verify(forge({ iat: now() }))).toBeNull();
    expect(issuer.verify(forge({ exp: now() + 60 }))).toBeNull();
  });

  test('a token that lives longer than ours do, or was issued longer ago than that, is refused', () => {
    expect(issuer.verify(forge({ iat: now(), exp: now() + config.accessTokenTtlSeconds + 3600 }))).toBeNull();
    expect(issuer.verify(forge({ iat: now() - config.accessTokenTtlSeconds - 60, exp: now() + 60 }))).toBeNull();
  });
});
