import type { Sequelize } from 'sequelize';
import QRCode from 'qrcode';
import { Identity } from '../../db/models';
import { withTenant, type Tx } from '../../db/connection';
import {
  confirmTotpEnrollment,
  createTotpEnrollment,
  disableTotp as disableAuthenticator,
  findPendingEnrollment,
  loadFactorState,
  replaceRecoveryCodes,
  revokeIdentitySessions,
  setEmailFactor,
  updatePasswordHash,
  type FactorState,
} from '../../db/repositories/identity/second-factors';
import { markSecondFactorVerified, secondFactorVerifiedAt } from '../../db/repositories/identity/sessions';
import { AppError } from '../../core/problems';
import type { AuditAction } from '../../core/audit-actions';
import type { Config } from '../../core/config';
import type { FactorSecrets } from '../../core/factor-secrets';
import type { PasswordHasher } from '../../core/passwords';
import { matchTotpStep, newTotpSecret, otpauthUri } from '../../core/totp';
import { hashRecoveryCode, newRecoveryCode, RECOVERY_CODE_COUNT } from '../../core/recovery-codes';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { recordCallerEvent } from '../audit/caller-events';
import { channelOf, factorOf, type EmailChallengeResponse, type FactorHolder, type SecondFactorService } from './second-factors';
import { assertNewPassword, assertPasswordWithinBytes } from './password-rules';

type SecurityStatus = Schemas['SecurityStatus'];

export interface SecurityServiceDeps {
  db: Sequelize;
  hasher: PasswordHasher;
  factors: SecondFactorService;
  factorSecrets: FactorSecrets;
  settings: Config['secondFactors'];
  emailDeliveryAvailable: boolean;
}

const CHANGE_PASSWORD_MIN_CHARACTERS = 12;

/** The caller's own second factors and password (GET /me/security and the operations under it). */
export function createSecurity(deps: SecurityServiceDeps) {
  const { db, factors, factorSecrets, settings } = deps;

  function statusOf(state: FactorState): SecurityStatus {
    const totpEnabled = state.totpSecretEncrypted !== null;
    return {
      channel: totpEnabled ? 'TOTP' : state.emailFactorEnabled ? 'EMAIL' : 'NONE',
      email2faEnabled: state.emailFactorEnabled,
      emailDeliveryAvailable: deps.emailDeliveryAvailable,
      totpAvailable: true,
      totpEnabled,
      recoveryCodesRemaining: state.recoveryCodesRemaining,
    };
  }

  async function identityOf(principal: Principal) {
    const identity = await Identity.findByPk(principal.identityId);
    if (!identity) throw new AppError('not-found', 'The identity no longer exists');
    return identity;
  }

  /** Re-authenticates the caller: every security change needs the current password. */
  async function reauthenticate(principal: Principal, currentPassword: string) {
    assertPasswordWithinBytes('currentPassword', currentPassword);
    const identity = await identityOf(principal);
    await factors.verifyCurrentPassword(identity, currentPassword);
    return identity;
  }

  /**
   * Step-up: with a second factor on, a change to the password or the factors needs that factor confirmed
   * in this session within the last `stepUpTtlSeconds` (POST /me/security/step-up). The password and a
   * stolen access token are not enough to mint new factors.
   */
  async function assertSteppedUp(principal: Principal, identity: FactorHolder): Promise<void> {
    if (!channelOf(identity)) return;
    const verifiedAt = await withTenant(db, principal.tenantId, (tx) => secondFactorVerifiedAt(tx, { tenantId: principal.tenantId }, principal.sessionId));
    if (verifiedAt && verifiedAt.getTime() > Date.now() - settings.stepUpTtlSeconds * 1000) return;
    throw new AppError('step-up-required', 'This change needs your second factor: confirm it with POST /api/v1/me/security/step-up, then retry');
  }

  async function stepUpSession(
    principal: Principal,
    body: Schemas['StepUpRequest'],
    ctx: RequestContext,
  ): Promise<{ status: 200; body: Schemas['StepUpResponse'] } | { status: 202; body: EmailChallengeResponse }> {
    const factor = factorOf(body, 'validation');
    const identity = await identityOf(principal);
    if (!channelOf(identity)) throw new AppError('second-factor-state', 'No second factor is on: changes need only the current password');
    if (!factor) return { status: 202, body: (await factors.factorChallenge(identity, { tenantId: principal.tenantId, purpose: 'STEP_UP' }, ctx))! };
    await factors.verifyFactor(identity, { tenantId: principal.tenantId, purpose: 'STEP_UP' }, body, factor, 'second-factor-code-incorrect');
    const verifiedAt = await audited(
      principal,
      ctx,
      'auth.step-up.succeeded',
      (tx) => markSecondFactorVerified(tx, { tenantId: principal.tenantId }, principal.sessionId),
      () => `second factor: ${factor}`,
    );
    if (!verifiedAt) throw new AppError('not-found', 'The session has ended');
    return { status: 200, body: { verifiedUntil: new Date(verifiedAt.getTime() + settings.stepUpTtlSeconds * 1000).toISOString() } };
  }

  /** Commits a security change and its audit event together, in the caller's workspace. */
  function audited<T>(
    principal: Principal,
    ctx: RequestContext,
    action: AuditAction,
    change: (tx: Tx) => Promise<T>,
    details: (result: T) => string = () => '',
  ): Promise<T> {
    return withTenant(db, principal.tenantId, async (tx) => {
      const result = await change(tx);
      await recordCallerEvent(tx, principal, ctx, { action, subjectType: 'IDENTITY', subjectId: principal.identityId, details: details(result) });
      return result;
    });
  }

  async function getSecurityStatus(principal: Principal): Promise<SecurityStatus> {
    return statusOf(await loadFactorState(db, principal.identityId));
  }

  async function newRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const hashes = await Promise.all(codes.map((c) => hashRecoveryCode(c, settings.recoveryCodeScryptLogN)));
    return { codes, hashes };
  }

  async function challengeEmailFactorSetting(
    principal: Principal,
    body: Schemas['SettingChallenge'],
    ctx: RequestContext,
  ): Promise<EmailChallengeResponse> {
    const identity = await reauthenticate(principal, body.currentPassword);
    if (body.purpose === 'ENABLE' && identity.emailFactorEnabled) throw new AppError('second-factor-state', 'Email codes are already on');
    // Turning email codes off is confirmed by an emailed code itself; turning them on next to an authenticator needs it.
    if (body.purpose === 'ENABLE') await assertSteppedUp(principal, identity);
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
    const identity = await reauthenticate(principal, body.currentPassword);
    // A challenge was issued for the opposite of the current state; the workflow rejects any other purpose.
    const enable = !identity.emailFactorEnabled;
    const purpose = enable ? 'ENABLE_EMAIL_FACTOR' : 'DISABLE_EMAIL_FACTOR';
    if (enable) await assertSteppedUp(principal, identity);
    await factors.checkFactor(principal.identityId, 'EMAIL_CODE', () =>
      factors.verifyEmailCode({ identityId: principal.identityId, tenantId: principal.tenantId, purpose }, body.challengeId, body.code, 'second-factor-code-incorrect'),
    );
    await audited(principal, ctx, enable ? 'auth.email-factor.enabled' : 'auth.email-factor.disabled', async (tx) => {
      if (!(await setEmailFactor(tx, principal.identityId, enable))) throw new AppError('second-factor-state', 'The email factor changed meanwhile');
    });
    return getSecurityStatus(principal);
  }

  async function setupTotp(principal: Principal, body: Schemas['SetupRequest']): Promise<Schemas['SetupResponse']> {
    const identity = await reauthenticate(principal, body.currentPassword);
    if (identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'An authenticator is already on; disable it first');
    await assertSteppedUp(principal, identity);
    const secret = newTotpSecret();
    const { enrollmentId, expiresAt } = await createTotpEnrollment(db, identity.id, {
      secretEncrypted: factorSecrets.encrypt('totp-secret', identity.id, secret),
      ttlSeconds: settings.totpEnrollmentTtlSeconds,
    });
    const uri = otpauthUri({ issuer: settings.issuer, account: identity.email, secret });
    return { enrollmentId, expiresAt: expiresAt.toISOString(), secret, otpauthUri: uri, qrDataUrl: await QRCode.toDataURL(uri) };
  }

  async function confirmTotp(principal: Principal, body: Schemas['ConfirmRequest'], ctx: RequestContext): Promise<Schemas['RecoveryResponse']> {
    const identity = await reauthenticate(principal, body.currentPassword);
    if (identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'An authenticator is already on');
    await assertSteppedUp(principal, identity);
    const sealed = await findPendingEnrollment(db, identity.id, body.enrollmentId);
    if (!sealed) throw new AppError('not-found', 'No pending authenticator enrolment has this id; it may have expired');
    let step: number | null = null;
    await factors.checkFactor(identity.id, 'TOTP', async () => {
      step = matchTotpStep(factorSecrets.decrypt('totp-secret', identity.id, sealed), body.code, Date.now());
      if (step === null) throw new AppError('second-factor-code-incorrect', 'The authenticator code is wrong or out of time');
    });
    const { codes, hashes } = await newRecoveryCodes();
    await audited(principal, ctx, 'auth.totp.enabled', async (tx) => {
      // The confirming step is spent, so the enrolment code cannot also log in.
      if (!(await confirmTotpEnrollment(tx, identity.id, { enrollmentId: body.enrollmentId, step: step! }))) {
        throw new AppError('second-factor-state', 'The enrolment was confirmed or replaced meanwhile');
      }
      await replaceRecoveryCodes(tx, identity.id, hashes);
    });
    return { recoveryCodes: codes };
  }

  async function disableTotp(
    principal: Principal,
    body: Schemas['DisableRequest'],
    ctx: RequestContext,
  ): Promise<SecurityStatus> {
    if ((body.code === undefined) === (body.recoveryCode === undefined)) {
      throw new AppError('validation', 'Send exactly one of code and recoveryCode', {
        errors: [{ path: '/body', message: 'must have exactly one of code, recoveryCode' }],
      });
    }
    const identity = await reauthenticate(principal, body.currentPassword);
    if (!identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'No authenticator is on');
    await factors.checkFactor(identity.id, body.code !== undefined ? 'TOTP' : 'RECOVERY_CODE', () =>
      body.code !== undefined
        ? factors.verifyTotpCode(identity, body.code, 'second-factor-code-incorrect')
        : factors.verifyRecoveryCode(identity, body.recoveryCode!, 'second-factor-code-incorrect'),
    );
    await audited(principal, ctx, 'auth.totp.disabled', (tx) => disableAuthenticator(tx, principal.identityId));
    return getSecurityStatus(principal);
  }

  async function regenerateRecoveryCodes(principal: Principal, body: Schemas['SetupRequest'], ctx: RequestContext): Promise<Schemas['RecoveryResponse']> {
    const identity = await reauthenticate(principal, body.currentPassword);
    if (!identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'Recovery codes exist only with an authenticator');
    await assertSteppedUp(principal, identity);
    const { codes, hashes } = await newRecoveryCodes();
    await audited(principal, ctx, 'auth.recovery-codes.regenerated', (tx) => replaceRecoveryCodes(tx, identity.id, hashes));
    return { recoveryCodes: codes };
  }

  async function changePassword(
    principal: Principal,
    body: Schemas['PasswordChange'],
    ctx: RequestContext,
  ): Promise<void> {
    assertNewPassword(body.newPassword, body.confirmPassword, CHANGE_PASSWORD_MIN_CHARACTERS, 'newPassword');
    const identity = await reauthenticate(principal, body.currentPassword);
    await assertSteppedUp(principal, identity);
    const passwordHash = await deps.hasher.hash(body.newPassword);
    await audited(
      principal,
      ctx,
      'auth.password.changed',
      async (tx) => {
        await updatePasswordHash(tx, identity.id, passwordHash);
        // Every other session of this person ends, in every workspace: whoever knew the old password is out.
        return revokeIdentitySessions(tx, identity.id, { keepSessionId: principal.sessionId, reason: 'PASSWORD_CHANGED' });
      },
      (ended) => `${ended.length} other session(s) ended`,
    );
  }

  return {
    stepUpSession,
    getSecurityStatus,
    challengeEmailFactorSetting,
    confirmEmailFactorSetting,
    setupTotp,
    confirmTotp,
    disableTotp,
    regenerateRecoveryCodes,
    changePassword,
  };
}
