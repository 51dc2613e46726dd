import type { Sequelize } from 'sequelize';

/** What every migration's up and down receive. */
export interface MigrationContext {
  sequelize: Sequelize;
  sql: (text: string) => Promise<void>;
  /** The application role; migrations grant it what it needs and nothing more. */
  appRole: string;
}
