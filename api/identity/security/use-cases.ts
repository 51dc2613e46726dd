import type { Sequelize } from 'sequelize';
import type { Config } from '../../../runtime/config';
import type { FactorSecrets } from '../../../core/identity/factor-secrets';
import type { PasswordHasher } from '../../../core/identity/passwords';
import type { SecondFactorService } from '../second-factors';
import { createEmailFactor } from './email-factor';
import { createSecurityGuards } from './guards';
import { createChangePassword } from './password';
import { createRecoveryCodes } from './recovery-codes';
import { createSecurityStatus } from './status';
import { createStepUp } from './step-up';
import { createTotp } from './totp';

export interface SecurityDeps {
  db: Sequelize;
  hasher: PasswordHasher;
  factors: SecondFactorService;
  factorSecrets: FactorSecrets;
  settings: Config['secondFactors'];
  emailDeliveryAvailable: boolean;
}

export type SecurityUseCases = ReturnType<typeof createSecurity>;

/** The caller's own password and second factors (GET /me/security and the operations under it), one use case per capability. */
export function createSecurity(deps: SecurityDeps) {
  const { db, hasher, factors, factorSecrets, settings } = deps;
  const guards = createSecurityGuards({ db, factors, settings });
  const status = createSecurityStatus({ db, emailDeliveryAvailable: deps.emailDeliveryAvailable });
  return {
    status,
    stepUp: createStepUp({ factors, settings, guards }),
    emailFactor: createEmailFactor({ factors, guards, status }),
    totp: createTotp({ db, factors, factorSecrets, settings, guards, status }),
    recoveryCodes: createRecoveryCodes({ settings, guards }),
    password: createChangePassword({ hasher, guards }),
  };
}
