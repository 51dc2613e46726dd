import type { MigrationContext } from './context';

// Factor attempts become reservations: each check reserves a row under the identity's advisory lock before
// it runs, and a check that passes releases its row. The window counts unreleased rows, so only failed
// checks (and checks cut off mid-way) count, and N concurrent checks can never admit more than the limit.
// The application role may append rows and set released_at (a column grant); it can neither delete them
// nor change when or what was attempted.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE factor_attempts
      ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
      ADD COLUMN released_at timestamptz;
    DROP INDEX factor_attempts_window_idx;
    CREATE INDEX factor_attempts_window_idx ON factor_attempts (identity_id, attempted_at DESC) WHERE released_at IS NULL;

    REVOKE DELETE, UPDATE, TRUNCATE ON factor_attempts FROM ${appRole};
    GRANT UPDATE (released_at) ON factor_attempts TO ${appRole};
    -- Global secret tables: the application role never deletes from them.
    REVOKE DELETE, TRUNCATE ON identities, totp_enrollments, recovery_codes, registration_proofs, registration_attempts FROM ${appRole};
  `);
}

export async function down({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    GRANT DELETE ON identities, totp_enrollments, recovery_codes, registration_proofs, registration_attempts TO ${appRole};
    REVOKE UPDATE (released_at) ON factor_attempts FROM ${appRole};
    GRANT DELETE ON factor_attempts TO ${appRole};
    DROP INDEX factor_attempts_window_idx;
    ALTER TABLE factor_attempts DROP COLUMN released_at, DROP COLUMN id;
    CREATE INDEX factor_attempts_window_idx ON factor_attempts (identity_id, attempted_at DESC);
  `);
}
