import type { MigrationContext } from './context';

// A bank statement's file in parts of at most a MiB instead of one value: the API writes the file as it reads
// it from the request (spooled to disk, never held whole) and the import reads it back a part per round trip,
// so neither holds a 20 MiB file, or the hex text of one, in memory. The parts of an import are numbered from
// 0 and, joined in order, are the file as it came (its size and SHA-256 are on the import). Stored
// uncompressed: a statement is read a part at a time and a zip (XLSX) does not compress again. Nothing is
// deleted, as before.

const PART = 1024 * 1024;

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE bank_statement_file_parts (
      tenant_id uuid NOT NULL,
      import_id uuid NOT NULL,
      part integer NOT NULL CHECK (part BETWEEN 0 AND 19),
      content bytea NOT NULL CHECK (length(content) BETWEEN 1 AND ${PART}),
      PRIMARY KEY (tenant_id, import_id, part),
      FOREIGN KEY (tenant_id, import_id) REFERENCES bank_statement_imports(tenant_id, id)
    );
    ALTER TABLE bank_statement_file_parts ALTER COLUMN content SET STORAGE EXTERNAL;
    GRANT SELECT, INSERT ON bank_statement_file_parts TO ${appRole};
    REVOKE UPDATE, DELETE, TRUNCATE ON bank_statement_file_parts FROM ${appRole};
    ALTER TABLE bank_statement_file_parts ENABLE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_statement_file_parts
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

    -- Every tenant's files, copied by the owner (row-level security is forced for it only once they are).
    ALTER TABLE bank_statement_files NO FORCE ROW LEVEL SECURITY;
    INSERT INTO bank_statement_file_parts (tenant_id, import_id, part, content)
    SELECT f.tenant_id, f.import_id, g.part, substring(f.content FROM g.part * ${PART} + 1 FOR ${PART})
      FROM bank_statement_files f, generate_series(0, (length(f.content) - 1) / ${PART}) AS g(part);
    ALTER TABLE bank_statement_file_parts FORCE ROW LEVEL SECURITY;
    DROP TABLE bank_statement_files;
  `);
}

export async function down({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE bank_statement_files (
      tenant_id uuid NOT NULL,
      import_id uuid NOT NULL,
      content bytea NOT NULL CHECK (length(content) BETWEEN 1 AND 20971520),
      PRIMARY KEY (tenant_id, import_id),
      FOREIGN KEY (tenant_id, import_id) REFERENCES bank_statement_imports(tenant_id, id)
    );
    ALTER TABLE bank_statement_files ALTER COLUMN content SET STORAGE EXTERNAL;
    GRANT SELECT, INSERT ON bank_statement_files TO ${appRole};
    REVOKE DELETE, TRUNCATE ON bank_statement_files FROM ${appRole};
    ALTER TABLE bank_statement_files ENABLE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_statement_files
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    ALTER TABLE bank_statement_file_parts NO FORCE ROW LEVEL SECURITY;
    INSERT INTO bank_statement_files (tenant_id, import_id, content)
    SELECT tenant_id, import_id, string_agg(content, ''::bytea ORDER BY part) FROM bank_statement_file_parts GROUP BY tenant_id, import_id;
    ALTER TABLE bank_statement_files FORCE ROW LEVEL SECURITY;
    DROP TABLE bank_statement_file_parts;
  `);
}
