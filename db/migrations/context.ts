import type { Sequelize } from 'sequelize';

/** What every migration's up and down receive. */
export interface MigrationContext {
  sequelize: Sequelize;
  sql: (text: string) => Promise<void>;
  /** The application role; migrations grant it what it needs and nothing more. */
  appRole: string;
  /**
   * The NOLOGIN, BYPASSRLS role that owns the few SECURITY DEFINER look-ups crossing tenants (every table
   * forces row-level security, its owner included); granted only what those functions read and write.
   */
  definerRole: string;
}
