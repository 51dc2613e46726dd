import type { MigrationContext } from './context';

// When the session last confirmed a second factor (POST /me/security/step-up): changes to the password
// and to the factors need it recent when the identity has a factor.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`ALTER TABLE sessions ADD COLUMN second_factor_verified_at timestamptz;`);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`ALTER TABLE sessions DROP COLUMN IF EXISTS second_factor_verified_at;`);
}
