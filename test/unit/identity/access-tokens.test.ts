import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { CLOCK_SKEW_SECONDS, createAccessTokenIssuer } from '../../../core/identity/access-tokens';
import { loadConfig } from '../../../runtime/config';

const config = loadConfig({ NODE_ENV: 'test' }).jwt;
const issuer = createAccessTokenIssuer(config);
const claims = { tenantId: randomUUID(), membershipId: randomUUID(), sessionId: randomUUID(), identityId: randomUUID() };
const key = config.keys[0]!;

/** A token signed with our own key, header and claims, with the lifetime fields given. */
function forge(lifetime: { iat?: number; exp?: number; nbf?: number }): string {
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

  test('when iat is ten minutes ahead of the clock, then the token is refused', () => {
    const iat = now() + 600;
    expect(issuer.verify(forge({ iat, exp: iat + config.accessTokenTtlSeconds }))).toBeNull();
  });

  test('when nbf is ten minutes ahead of the clock, then the token is refused', () => {
    expect(issuer.verify(forge({ iat: now(), nbf: now() + 600, exp: now() + config.accessTokenTtlSeconds }))).toBeNull();
  });

  test('when iat or nbf is ahead by no more than the clock skew, then the token is accepted', () => {
    const ahead = now() + CLOCK_SKEW_SECONDS - 5;
    expect(issuer.verify(forge({ iat: ahead, exp: ahead + config.accessTokenTtlSeconds }))).toEqual(claims);
    expect(issuer.verify(forge({ iat: now(), nbf: ahead, exp: now() + config.accessTokenTtlSeconds }))).toEqual(claims);
  });

  test('when the clock skew is beyond a minute, then it is no longer small', () => {
    expect(CLOCK_SKEW_SECONDS).toBeGreaterThan(0);
    expect(CLOCK_SKEW_SECONDS).toBeLessThanOrEqual(60);
  });
});
