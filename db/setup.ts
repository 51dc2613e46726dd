import { Client } from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createOperationIndex, loadOpenApiDocument } from '../contracts/operations';
import { loadConfig, databaseName, type Config } from '../runtime/config';
import { createSequelize } from './connection';
import { createMigrator, quoteIdent, type MigrationRoles } from './migrate';

// Creates what the service needs in PostgreSQL, idempotently:
//   the owner role (owns the schema, runs migrations), the application role (owns nothing, NOBYPASSRLS,
//   so row-level security always applies to it) and the definer role (NOLOGIN, BYPASSRLS: owns the few
//   SECURITY DEFINER look-ups that cross tenants, since every table forces row-level security on its
//   owner too), the database, grants, then migrations.

interface RoleSpec {
  name: string;
  password: string;
}

function roleFromUrl(url: string): RoleSpec {
  const u = new URL(url);
  return { name: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
}

function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

async function ensureRolesAndDatabase(config: Config, dbName: string, log: (m: string) => void): Promise<void> {
  if (!config.database.adminUrl) {
    log('DATABASE_ADMIN_URL not set: assuming roles and database exist');
    return;
  }
  const owner = roleFromUrl(config.database.ownerUrl);
  const app = roleFromUrl(config.database.url);
  const admin = new Client({ connectionString: config.database.adminUrl });
  await admin.connect();
  try {
    for (const role of [owner, app]) {
      const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role.name]);
      const pw = role.password ? ` PASSWORD ${literal(role.password)}` : '';
      if (exists.rowCount === 0) {
        await admin.query(`CREATE ROLE ${quoteIdent(role.name)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS${pw}`);
        log(`created role ${role.name}`);
      } else {
        await admin.query(`ALTER ROLE ${quoteIdent(role.name)} LOGIN NOSUPERUSER NOBYPASSRLS${pw}`);
      }
    }
    const definer = quoteIdent(config.database.definerRole);
    const definerExists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [config.database.definerRole]);
    if (definerExists.rowCount === 0) {
      await admin.query(`CREATE ROLE ${definer} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE BYPASSRLS`);
      log(`created role ${config.database.definerRole}`);
    }
    // The owner hands the definer functions over (ALTER FUNCTION ... OWNER needs the membership).
    await admin.query(`GRANT ${definer} TO ${quoteIdent(owner.name)}`);
    const db = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (db.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${quoteIdent(dbName)} OWNER ${quoteIdent(owner.name)} ENCODING 'UTF8' TEMPLATE template0`);
      log(`created database ${dbName}`);
    }
  } finally {
    await admin.end();
  }
  // Inside the database: the app role may connect and use the schema; tables the owner creates
  // are readable and writable by the app role unless a migration revokes it (append-only tables do).
  const ownerClient = new Client({ connectionString: config.database.ownerUrl });
  await ownerClient.connect();
  try {
    await ownerClient.query(`
      REVOKE ALL ON DATABASE ${quoteIdent(dbName)} FROM PUBLIC;
      GRANT CONNECT, TEMPORARY ON DATABASE ${quoteIdent(dbName)} TO ${quoteIdent(app.name)};
      REVOKE CREATE ON SCHEMA public FROM PUBLIC;
      GRANT USAGE ON SCHEMA public TO ${quoteIdent(app.name)};
      GRANT USAGE, CREATE ON SCHEMA public TO ${quoteIdent(config.database.definerRole)};
      ALTER DEFAULT PRIVILEGES FOR ROLE ${quoteIdent(owner.name)} IN SCHEMA public
        GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${quoteIdent(app.name)};
      ALTER DEFAULT PRIVILEGES FOR ROLE ${quoteIdent(owner.name)} IN SCHEMA public
        GRANT USAGE, SELECT ON SEQUENCES TO ${quoteIdent(app.name)};
    `);
  } finally {
    await ownerClient.end();
  }
}

/**
 * Every workspace's roles that follow the defaults (and every ADMIN role) get the document's default
 * permissions: new operations are granted, removed ones withdrawn; edited roles keep their sets. All
 * workspaces, or the one given.
 */
export async function syncRolePermissions(owner: Sequelize, tenantId: string | null = null): Promise<number> {
  const defaults = Object.fromEntries(createOperationIndex(loadOpenApiDocument()).defaultPermissions());
  const [row] = await owner.query<{ changed: number }>('SELECT app_sync_role_permissions(CAST(:defaults AS jsonb), CAST(:tenantId AS uuid)) AS changed', {
    replacements: { defaults: JSON.stringify(defaults), tenantId },
    type: QueryTypes.SELECT,
  });
  return row?.changed ?? 0;
}

/** The role names migrations grant to, from the configuration. */
export function migrationRoles(config: Config): MigrationRoles {
  return { app: roleFromUrl(config.database.url).name, definer: config.database.definerRole };
}

export async function dropDatabase(config: Config, dbName: string): Promise<void> {
  if (!config.database.adminUrl) throw new Error('dropping a database needs DATABASE_ADMIN_URL');
  const admin = new Client({ connectionString: config.database.adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function setupDatabase(config: Config, log: (m: string) => void = () => undefined): Promise<void> {
  const dbName = databaseName(config.database.url);
  await ensureRolesAndDatabase(config, dbName, log);
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    const migrator = createMigrator(owner, migrationRoles(config), log);
    const applied = await migrator.up();
    // The migration ledger is the owner's business alone.
    await owner.query(`REVOKE ALL ON schema_migrations FROM ${quoteIdent(roleFromUrl(config.database.url).name)}`);
    log(`migrations applied: ${applied.length === 0 ? 'none pending' : applied.map((m) => m.name).join(', ')}`);
    const changed = await syncRolePermissions(owner);
    if (changed > 0) log(`role permissions brought up to the document's defaults: ${changed} change(s)`);
  } finally {
    await owner.close();
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const command = process.argv[2] ?? 'up';
  const log = (m: string) => process.stderr.write(`db: ${m}\n`);
  if (command === 'up') {
    await setupDatabase(config, log);
  } else if (command === 'down') {
    const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
    try {
      const reverted = await createMigrator(owner, migrationRoles(config), log).down();
      log(`reverted: ${reverted.map((m) => m.name).join(', ') || 'nothing'}`);
    } finally {
      await owner.close();
    }
  } else {
    throw new Error(`usage: setup [up|down], got ${command}`);
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`db: setup failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
