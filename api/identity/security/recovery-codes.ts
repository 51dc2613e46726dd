import { replaceRecoveryCodes } from '../../../db/repositories/identity/recovery-codes';
import { AppError } from '../../../core/shared/problems';
import type { Config } from '../../../runtime/config';
import { hashRecoveryCode, newRecoveryCode, RECOVERY_CODE_COUNT } from '../../../core/identity/recovery-codes';
import type { Principal, RequestContext } from '../../http/context';
import type { Schemas } from '../../http/operation-handler';
import type { SecurityGuards } from './guards';

/** A new set of recovery codes: the codes (answered once) and their hashes (stored). */
export async function newRecoveryCodes(scryptLogN: number): Promise<{ codes: string[]; hashes: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const hashes = await Promise.all(codes.map((c) => hashRecoveryCode(c, scryptLogN)));
  return { codes, hashes };
}

/** regenerateRecoveryCodes: a new set of the authenticator's recovery codes replaces the old one. */
export function createRecoveryCodes(deps: { settings: Config['secondFactors']; guards: SecurityGuards }) {
  const { settings, guards } = deps;

  async function regenerateRecoveryCodes(principal: Principal, body: Schemas['SetupRequest'], ctx: RequestContext): Promise<Schemas['RecoveryResponse']> {
    const identity = await guards.reauthenticate(principal, body.currentPassword);
    if (!identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'Recovery codes exist only with an authenticator');
    await guards.assertSteppedUp(principal, identity);
    const { codes, hashes } = await newRecoveryCodes(settings.recoveryCodeScryptLogN);
    await guards.audited(principal, ctx, 'auth.recovery-codes.regenerated', (tx) => replaceRecoveryCodes(tx, identity.id, hashes));
    return { recoveryCodes: codes };
  }

  return { regenerateRecoveryCodes };
}
