import type { Sequelize } from 'sequelize';
import { initIdentityModels } from './identity';
import { initOrganisationModels } from './organisation';
import { initAccountingModels } from './accounting';
import { initLedgerModels } from './ledger';
import { initMailModels } from './mail';
import { initNotificationModels } from './notifications';
import { initRateModels } from './rates';
import { initWorkflowModels } from './workflows';
import { initWebhookModels } from './webhooks';
import { initCounterpartyModels } from './counterparties';

export * from './identity';
export * from './organisation';
export * from './accounting';
export * from './ledger';
export * from './mail';
export * from './notifications';
export * from './rates';
export * from './workflows';
export * from './webhooks';
export * from './counterparties';

// A table has a model when a repository reads or writes it through one; the tables that only raw SQL
// touches have none (the list is in docs/decisions.md, "Data access has one rule").

/** Binds every model to the given connection; called once per process at start-up (db/open.ts). */
export function initModels(sequelize: Sequelize): void {
  initIdentityModels(sequelize);
  initOrganisationModels(sequelize);
  initAccountingModels(sequelize);
  initLedgerModels(sequelize);
  initMailModels(sequelize);
  initNotificationModels(sequelize);
  initRateModels(sequelize);
  initWorkflowModels(sequelize);
  initWebhookModels(sequelize);
  initCounterpartyModels(sequelize);
}
