import type { MigrationContext } from './context';

// Request-rate counters of rate-limiter-flexible's PostgreSQL store (its own table layout), shared by every
// API process. Keys hold a kind and a client IP or a hash of an email address, never the address itself.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE request_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP TABLE IF EXISTS request_limits;`);
}
