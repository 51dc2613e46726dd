import { markSecondFactorVerified } from '../../../db/repositories/identity/sessions';
import { AppError } from '../../../core/shared/problems';
import type { Config } from '../../../runtime/config';
import type { Principal, RequestContext } from '../../http/context';
import type { Schemas } from '../../http/operation-handler';
import { channelOf, factorOf, type EmailChallengeResponse, type SecondFactorService } from '../second-factors';
import type { SecurityGuards } from './guards';

/** The session is stepped up until `verifiedUntil`, or (no factor sent) the factor's challenge comes first. */
export type StepUpOutcome = { kind: 'stepped-up'; verifiedUntil: Date } | { kind: 'challenge'; challenge: EmailChallengeResponse };

/** stepUpSession: the caller confirms their second factor in this session, for the changes that need it. */
export function createStepUp(deps: { factors: SecondFactorService; settings: Config['secondFactors']; guards: SecurityGuards }) {
  const { factors, settings, guards } = deps;

  async function stepUpSession(principal: Principal, body: Schemas['StepUpRequest'], ctx: RequestContext): Promise<StepUpOutcome> {
    const factor = factorOf(body, 'validation');
    const identity = await guards.identityOf(principal);
    if (!channelOf(identity)) throw new AppError('second-factor-state', 'No second factor is on: changes need only the current password');
    if (!factor) return { kind: 'challenge', challenge: (await factors.factorChallenge(identity, { tenantId: principal.tenantId, purpose: 'STEP_UP' }, ctx))! };
    await factors.verifyFactor(identity, { tenantId: principal.tenantId, purpose: 'STEP_UP' }, body, factor, 'second-factor-code-incorrect');
    const verifiedAt = await guards.audited(
      principal,
      ctx,
      'auth.step-up.succeeded',
      (tx) => markSecondFactorVerified(tx, { tenantId: principal.tenantId }, principal.sessionId),
      () => `second factor: ${factor}`,
    );
    if (!verifiedAt) throw new AppError('not-found', 'The session has ended');
    return { kind: 'stepped-up', verifiedUntil: new Date(verifiedAt.getTime() + settings.stepUpTtlSeconds * 1000) };
  }

  return { stepUpSession };
}
