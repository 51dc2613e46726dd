import type { MigrationContext } from './context';

// The company's column profiles: how one bank's CSV or XLSX export is laid out (the header row, which column is
// what, where the balances are). An import of such a file names its profile and keeps a copy of it, so the
// import reads the file as the profile was when it was sent, whatever later edits do.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE bank_statement_profiles (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = btrim(name)),
      profile jsonb NOT NULL CHECK (jsonb_typeof(profile) = 'object' AND length(profile::text) <= 20000),
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id)
    );
    CREATE INDEX bank_statement_profiles_name_idx ON bank_statement_profiles (tenant_id, legal_entity_id, name, id);
    GRANT SELECT, INSERT, UPDATE, DELETE ON bank_statement_profiles TO ${appRole};
    ALTER TABLE bank_statement_profiles ENABLE ROW LEVEL SECURITY;
    ALTER TABLE bank_statement_profiles FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_statement_profiles
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

    ALTER TABLE bank_statement_imports ADD COLUMN profile_id uuid, ADD COLUMN profile jsonb;
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE bank_statement_imports DROP COLUMN IF EXISTS profile, DROP COLUMN IF EXISTS profile_id;
    DROP TABLE IF EXISTS bank_statement_profiles;
  `);
}
