import type { Sequelize } from 'sequelize';
import { loadFactorState } from '../../../db/repositories/identity/factor-settings';
import type { Principal } from '../../http/context';
import type { Schemas } from '../../http/operation-handler';

export type SecurityStatus = Schemas['SecurityStatus'];

export type SecurityStatusReader = ReturnType<typeof createSecurityStatus>;

/** getSecurityStatus: which second factors the caller has on, and what this deployment offers. */
export function createSecurityStatus(deps: { db: Sequelize; emailDeliveryAvailable: boolean }) {
  async function getSecurityStatus(principal: Principal): Promise<SecurityStatus> {
    const state = await loadFactorState(deps.db, principal.identityId);
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

  return { getSecurityStatus };
}
