import { setEmailFactor } from '../../../db/repositories/identity/factor-settings';
import { AppError } from '../../../core/shared/problems';
import type { Principal, RequestContext } from '../../http/context';
import type { Schemas } from '../../http/operation-handler';
import type { EmailChallengeResponse, SecondFactorService } from '../second-factors';
import type { SecurityGuards } from './guards';
import type { SecurityStatus, SecurityStatusReader } from './status';

/** challengeEmailFactorSetting and confirmEmailFactorSetting: email codes on or off, confirmed by an emailed code. */
export function createEmailFactor(deps: { factors: SecondFactorService; guards: SecurityGuards; status: SecurityStatusReader }) {
  const { factors, guards, status } = deps;

  async function challengeEmailFactorSetting(
    principal: Principal,
    body: Schemas['SettingChallenge'],
    ctx: RequestContext,
  ): Promise<EmailChallengeResponse> {
    const identity = await guards.reauthenticate(principal, body.currentPassword);
    if (body.purpose === 'ENABLE' && identity.emailFactorEnabled) throw new AppError('second-factor-state', 'Email codes are already on');
    // Turning email codes off is confirmed by an emailed code itself; turning them on next to an authenticator needs it.
    if (body.purpose === 'ENABLE') await guards.assertSteppedUp(principal, identity);
    if (body.purpose === 'DISABLE' && !identity.emailFactorEnabled) throw new AppError('second-factor-state', 'Email codes are already off');
    const purpose = body.purpose === 'ENABLE' ? 'ENABLE_EMAIL_FACTOR' : 'DISABLE_EMAIL_FACTOR';
    const challenge = await factors.startEmailChallenge({ identityId: principal.identityId, tenantId: principal.tenantId, purpose }, ctx);
    return { channel: 'EMAIL', ...challenge };
  }

  async function confirmEmailFactorSetting(
    principal: Principal,
    body: Schemas['SettingConfirmation'],
    ctx: RequestContext,
  ): Promise<SecurityStatus> {
    const identity = await guards.reauthenticate(principal, body.currentPassword);
    // A challenge was issued for the opposite of the current state; the workflow rejects any other purpose.
    const enable = !identity.emailFactorEnabled;
    const purpose = enable ? 'ENABLE_EMAIL_FACTOR' : 'DISABLE_EMAIL_FACTOR';
    if (enable) await guards.assertSteppedUp(principal, identity);
    await factors.checkFactor(principal.identityId, 'EMAIL_CODE', () =>
      factors.verifyEmailCode({ identityId: principal.identityId, tenantId: principal.tenantId, purpose }, body.challengeId, body.code, 'second-factor-code-incorrect'),
    );
    await guards.audited(principal, ctx, enable ? 'auth.email-factor.enabled' : 'auth.email-factor.disabled', async (tx) => {
      if (!(await setEmailFactor(tx, principal.identityId, enable))) throw new AppError('second-factor-state', 'The email factor changed meanwhile');
    });
    return status.getSecurityStatus(principal);
  }

  return { challengeEmailFactorSetting, confirmEmailFactorSetting };
}
