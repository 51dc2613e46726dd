import { Umzug, SequelizeStorage } from 'umzug';
import { QueryTypes, type Sequelize } from 'sequelize';
import { MIGRATIONS, type MigrationContext } from './migrations';

/** The roles migrations grant to, by name. */
export interface MigrationRoles {
  app: string;
  definer: string;
}

export function createMigrator(owner: Sequelize, roles: MigrationRoles, log: (msg: string) => void = () => undefined) {
  // Each migration runs in one transaction: it applies whole or not at all.
  const inTransaction = (work: (ctx: MigrationContext) => Promise<void>) =>
    owner.transaction(async (transaction) => {
      await work({
        sequelize: owner,
        appRole: quoteIdent(roles.app),
        definerRole: quoteIdent(roles.definer),
        sql: async (text) => {
          await owner.query(text, { type: QueryTypes.RAW, transaction });
        },
      });
    });
  return new Umzug<Record<string, never>>({
    migrations: MIGRATIONS.map(({ name, module }) => ({
      name,
      up: () => inTransaction((ctx) => module.up(ctx)),
      down: () => inTransaction((ctx) => module.down(ctx)),
    })),
    context: {},
    storage: new SequelizeStorage({ sequelize: owner, tableName: 'schema_migrations' }),
    logger: { info: (m) => log(JSON.stringify(m)), warn: (m) => log(JSON.stringify(m)), error: (m) => log(JSON.stringify(m)), debug: () => undefined },
  });
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe SQL identifier: ${name}`);
  return `"${name}"`;
}
