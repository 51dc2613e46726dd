import type { Sequelize } from 'sequelize';
import { initIdentityModels } from './identity';
import { initWorkspaceModels } from './workspace';
import { initSessionModels } from './session';
import { initAuditModels } from './audit';

export * from './identity';
export * from './workspace';
export * from './session';
export * from './audit';

/** Binds every model to the given connection; called once per process at start-up. */
export function initModels(sequelize: Sequelize): void {
  initIdentityModels(sequelize);
  initWorkspaceModels(sequelize);
  initSessionModels(sequelize);
  initAuditModels(sequelize);
}
