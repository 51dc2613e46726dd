import type { Sequelize } from 'sequelize';
import { initIdentityModels } from './identity';
import { initOrganisationModels } from './organisation';
import { initAccountingModels } from './accounting';
import { initLedgerModels } from './ledger';
import { initAuditModels } from './audit';
import { initMailModels } from './mail';
import { initRateModels } from './rates';

export * from './identity';
export * from './organisation';
export * from './accounting';
export * from './ledger';
export * from './audit';
export * from './mail';
export * from './rates';

/** Binds every model to the given connection; called once per process at start-up. */
export function initModels(sequelize: Sequelize): void {
  initIdentityModels(sequelize);
  initOrganisationModels(sequelize);
  initAccountingModels(sequelize);
  initLedgerModels(sequelize);
  initAuditModels(sequelize);
  initMailModels(sequelize);
  initRateModels(sequelize);
}
