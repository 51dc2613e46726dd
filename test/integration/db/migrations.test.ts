import { QueryTypes } from 'sequelize';
import { loadConfig, type Config } from '../../../runtime/config';
import { createSequelize } from '../../../db/connection';
import { createMigrator } from '../../../db/migrate';
import { dropDatabase, migrationRoles, setupDatabase } from '../../../db/setup';

// A scratch database of its own, so reverting migrations never touches the one other tests use.
const NAME = `accounting_migrations_${process.pid}`;
let config: Config;

beforeAll(async () => {
  config = loadConfig({ ...process.env, NODE_ENV: 'test', DATABASE_NAME: NAME });
  await setupDatabase(config);
});
afterAll(async () => {
  await dropDatabase(config, NAME);
});

async function tables(): Promise<string[]> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    const rows = await owner.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1",
      { type: QueryTypes.SELECT },
    );
    return rows.map((r) => r.name);
  } finally {
    await owner.close();
  }
}

describe('migrations', () => {
  test('setup is idempotent, and every migration reverts down to nothing and applies again', async () => {
    const before = await tables();
    expect(before).toEqual(expect.arrayContaining(['identities', 'tenants', 'memberships', 'sessions', 'refresh_tokens', 'audit_events']));
    await setupDatabase(config); // a second run changes nothing
    expect(await tables()).toEqual(before);

    const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
    try {
      const migrator = createMigrator(owner, migrationRoles(config));
      const reverted = await migrator.down({ to: 0 });
      expect(reverted.length).toBeGreaterThan(0);
      expect(await tables()).toEqual([]);
      await migrator.up();
    } finally {
      await owner.close();
    }
    expect(await tables()).toEqual(before);
  });
});
