import type { Sequelize } from 'sequelize';
import QRCode from 'qrcode';
import { replaceRecoveryCodes } from '../../../db/repositories/identity/recovery-codes';
import {
  confirmTotpEnrollment,
  createTotpEnrollment,
  disableTotp as disableAuthenticator,
  findPendingEnrollment,
} from '../../../db/repositories/identity/totp';
import { AppError } from '../../../core/shared/problems';
import type { Config } from '../../../runtime/config';
import type { FactorSecrets } from '../../../core/identity/factor-secrets';
import { matchTotpStep, newTotpSecret, otpauthUri } from '../../../core/identity/totp';
import type { Principal, RequestContext } from '../../http/context';
import type { Schemas } from '../../http/operation-handler';
import type { SecondFactorService } from '../second-factors';
import type { SecurityGuards } from './guards';
import { newRecoveryCodes } from './recovery-codes';
import type { SecurityStatus, SecurityStatusReader } from './status';

export interface TotpDeps {
  db: Sequelize;
  factors: SecondFactorService;
  factorSecrets: FactorSecrets;
  settings: Config['secondFactors'];
  guards: SecurityGuards;
  status: SecurityStatusReader;
}

/** setupTotp, confirmTotp and disableTotp: the caller's authenticator, with its recovery codes. */
export function createTotp(deps: TotpDeps) {
  const { db, factors, factorSecrets, settings, guards } = deps;

  async function setupTotp(principal: Principal, body: Schemas['SetupRequest']): Promise<Schemas['SetupResponse']> {
    const identity = await guards.reauthenticate(principal, body.currentPassword);
    if (identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'An authenticator is already on; disable it first');
    await guards.assertSteppedUp(principal, identity);
    const secret = newTotpSecret();
    const { enrollmentId, expiresAt } = await createTotpEnrollment(db, identity.id, {
      secretEncrypted: factorSecrets.encrypt('totp-secret', identity.id, secret),
      ttlSeconds: settings.totpEnrollmentTtlSeconds,
    });
    const uri = otpauthUri({ issuer: settings.issuer, account: identity.email, secret });
    return { enrollmentId, expiresAt: expiresAt.toISOString(), secret, otpauthUri: uri, qrDataUrl: await QRCode.toDataURL(uri) };
  }

  async function confirmTotp(principal: Principal, body: Schemas['ConfirmRequest'], ctx: RequestContext): Promise<Schemas['RecoveryResponse']> {
    const identity = await guards.reauthenticate(principal, body.currentPassword);
    if (identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'An authenticator is already on');
    await guards.assertSteppedUp(principal, identity);
    const sealed = await findPendingEnrollment(db, identity.id, body.enrollmentId);
    if (!sealed) throw new AppError('not-found', 'No pending authenticator enrolment has this id; it may have expired');
    let step: number | null = null;
    await factors.checkFactor(identity.id, 'TOTP', async () => {
      step = matchTotpStep(factorSecrets.decrypt('totp-secret', identity.id, sealed), body.code, Date.now());
      if (step === null) throw new AppError('second-factor-code-incorrect', 'The authenticator code is wrong or out of time');
    });
    const { codes, hashes } = await newRecoveryCodes(settings.recoveryCodeScryptLogN);
    await guards.audited(principal, ctx, 'auth.totp.enabled', async (tx) => {
      // The confirming step is spent, so the enrolment code cannot also log in.
      if (!(await confirmTotpEnrollment(tx, identity.id, { enrollmentId: body.enrollmentId, step: step! }))) {
        throw new AppError('second-factor-state', 'The enrolment was confirmed or replaced meanwhile');
      }
      await replaceRecoveryCodes(tx, identity.id, hashes);
    });
    return { recoveryCodes: codes };
  }

  async function disableTotp(principal: Principal, body: Schemas['DisableRequest'], ctx: RequestContext): Promise<SecurityStatus> {
    if ((body.code === undefined) === (body.recoveryCode === undefined)) {
      throw new AppError('validation', 'Send exactly one of code and recoveryCode', {
        errors: [{ path: '/body', message: 'must have exactly one of code, recoveryCode' }],
      });
    }
    const identity = await guards.reauthenticate(principal, body.currentPassword);
    if (!identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'No authenticator is on');
    await factors.checkFactor(identity.id, body.code !== undefined ? 'TOTP' : 'RECOVERY_CODE', () =>
      body.code !== undefined
        ? factors.verifyTotpCode(identity, body.code, 'second-factor-code-incorrect')
        : factors.verifyRecoveryCode(identity, body.recoveryCode!, 'second-factor-code-incorrect'),
    );
    await guards.audited(principal, ctx, 'auth.totp.disabled', (tx) => disableAuthenticator(tx, principal.identityId));
    return deps.status.getSecurityStatus(principal);
  }

  return { setupTotp, confirmTotp, disableTotp };
}
