import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import type { RequestContext } from '../http/context';
import type { SessionService, TokenPair } from './sessions';
import type { EmailChallengeResponse, FactorHolder, SecondFactorService } from './second-factors';

/** How a sign-in ends: a session, or the challenge of the identity's second factor (the next step). */
export type SignInOutcome = { kind: 'session'; tokens: TokenPair } | { kind: 'challenge'; challenge: EmailChallengeResponse };

/** The membership a person has just joined with (a registered workspace, an accepted invitation). */
export interface JoinedMembership {
  tenantId: string;
  membershipId: string;
  identityId: string;
}

export type SignIn = ReturnType<typeof createSignIn>;

/** The last step of register and acceptInvitation, shared. */
export function createSignIn(deps: { db: Sequelize; sessions: SessionService; factors: SecondFactorService }) {
  /**
   * After a registration or an accepted invitation: the password alone never opens a session for an
   * identity with a second factor, so an existing identity (`verified`, whose password the request checked)
   * with a factor gets its challenge, answered by a login on the workspace's host; a new identity, or one
   * without a factor, gets a session in the joined membership.
   */
  async function sessionOrChallenge(verified: FactorHolder | null, joined: JoinedMembership, ctx: RequestContext): Promise<SignInOutcome> {
    const challenge = verified ? await deps.factors.factorChallenge(verified, { tenantId: joined.tenantId, purpose: 'LOGIN' }, ctx) : null;
    if (challenge) return { kind: 'challenge', challenge };
    const tokens = await withTenant(deps.db, joined.tenantId, (tx) => deps.sessions.open(tx, joined, ctx));
    return { kind: 'session', tokens };
  }

  return { sessionOrChallenge };
}
