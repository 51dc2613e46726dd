import type { MigrationContext } from './context';

// Bank statements imported into the company's bank accounts, and their lines. An import is the file as the
// bank exported it (kept with its SHA-256: the same file for the same account is one import, whatever the
// number of requests), what reading it found (its status, problem and counts) and its statement period. A
// line is one transaction of the bank: stored once per bank account under its de-duplication key (the bank's
// own reference, else the row's content and its occurrence among identical rows of the same statement), so
// a file imported twice or two overlapping statements add each transaction once. A matched line names the
// payment it was settled by; the payment names its line too (payments.bank_line_id), one live payment per
// line. Nothing here is deleted: an import's file and lines are the evidence of what the bank said.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE bank_statement_imports (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      bank_account_id uuid NOT NULL,
      sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      content_type text NOT NULL CHECK (length(content_type) BETWEEN 1 AND 200),
      byte_size integer NOT NULL CHECK (byte_size BETWEEN 1 AND 20971520),
      status text NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
      format text CHECK (format IN ('1c', 'camt.053', 'mt940', 'csv', 'xlsx')),
      statement_count integer CHECK (statement_count >= 1),
      period_from date,
      period_to date,
      opening_balance numeric(20, 2),
      closing_balance numeric(20, 2),
      read_count integer NOT NULL DEFAULT 0 CHECK (read_count >= 0),
      new_count integer NOT NULL DEFAULT 0 CHECK (new_count >= 0),
      duplicate_count integer NOT NULL DEFAULT 0 CHECK (duplicate_count >= 0),
      matched_count integer NOT NULL DEFAULT 0 CHECK (matched_count >= 0),
      proposed_count integer NOT NULL DEFAULT 0 CHECK (proposed_count >= 0),
      unmatched_count integer NOT NULL DEFAULT 0 CHECK (unmatched_count >= 0),
      lines_stored boolean NOT NULL DEFAULT false,
      problem jsonb,
      imported_by_membership_id uuid,
      correlation_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, bank_account_id, id),
      CONSTRAINT bank_statement_imports_file_key UNIQUE (tenant_id, bank_account_id, sha256),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      FOREIGN KEY (tenant_id, bank_account_id) REFERENCES bank_accounts(tenant_id, id),
      CONSTRAINT bank_statement_imports_counts CHECK (read_count = new_count + duplicate_count AND new_count >= matched_count + proposed_count),
      CONSTRAINT bank_statement_imports_outcome CHECK (
        (status = 'FAILED') = (problem IS NOT NULL) AND (status = 'RUNNING') = (completed_at IS NULL)
        AND (status <> 'FAILED' OR NOT lines_stored)
      ),
      CONSTRAINT bank_statement_imports_period CHECK (period_from IS NULL OR period_to IS NULL OR period_from <= period_to)
    );
    CREATE INDEX bank_statement_imports_account_idx ON bank_statement_imports (tenant_id, bank_account_id, created_at DESC, id);

    -- The file as it came, apart from the import's row so that lists never read it.
    CREATE TABLE bank_statement_files (
      tenant_id uuid NOT NULL,
      import_id uuid NOT NULL,
      content bytea NOT NULL CHECK (length(content) BETWEEN 1 AND 20971520),
      PRIMARY KEY (tenant_id, import_id),
      FOREIGN KEY (tenant_id, import_id) REFERENCES bank_statement_imports(tenant_id, id)
    );
    ALTER TABLE bank_statement_files ALTER COLUMN content SET STORAGE EXTERNAL;

    CREATE TABLE bank_lines (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      bank_account_id uuid NOT NULL,
      import_id uuid NOT NULL,
      line_no integer NOT NULL CHECK (line_no >= 1),
      line_date date NOT NULL,
      direction text NOT NULL CHECK (direction IN ('IN', 'OUT')),
      amount numeric(20, 2) NOT NULL CHECK (amount > 0),
      reference text CHECK (length(reference) BETWEEN 1 AND 1000),
      counterparty_name text CHECK (length(counterparty_name) BETWEEN 1 AND 1000),
      counterparty_tin text CHECK (length(counterparty_tin) BETWEEN 1 AND 1000),
      counterparty_account text CHECK (length(counterparty_account) BETWEEN 1 AND 1000),
      counterparty_bank_code text CHECK (length(counterparty_bank_code) BETWEEN 1 AND 1000),
      purpose text NOT NULL CHECK (length(purpose) <= 1000),
      document_number text CHECK (length(document_number) BETWEEN 1 AND 1000),
      dedup_key text NOT NULL CHECK (dedup_key ~ '^[0-9a-f]{64}$'),
      status text NOT NULL CHECK (status IN ('UNMATCHED', 'PROPOSED', 'MATCHED')),
      proposal jsonb,
      payment_id uuid,
      matched_at timestamptz,
      matched_by_membership_id uuid,
      version bigint NOT NULL DEFAULT 1 CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, bank_account_id, id),
      CONSTRAINT bank_lines_dedup_key UNIQUE (tenant_id, bank_account_id, dedup_key),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      FOREIGN KEY (tenant_id, bank_account_id, import_id) REFERENCES bank_statement_imports(tenant_id, bank_account_id, id),
      FOREIGN KEY (tenant_id, payment_id) REFERENCES payments(tenant_id, id),
      CONSTRAINT bank_lines_match CHECK (
        (status = 'MATCHED') = (payment_id IS NOT NULL) AND (status = 'MATCHED') = (matched_at IS NOT NULL)
        AND (status <> 'PROPOSED' OR proposal IS NOT NULL)
      )
    );
    -- The lines of an account in date order (the list, the reconciliation), and by status (what is left to match).
    CREATE INDEX bank_lines_account_date_idx ON bank_lines (tenant_id, bank_account_id, line_date, line_no, id);
    CREATE INDEX bank_lines_import_idx ON bank_lines (tenant_id, import_id, line_no);

    -- A payment settled from a bank line names it; a line has at most one live payment.
    ALTER TABLE payments ADD COLUMN bank_line_id uuid;
    ALTER TABLE payments ADD CONSTRAINT payments_bank_line_fk FOREIGN KEY (tenant_id, bank_line_id) REFERENCES bank_lines(tenant_id, id);
    CREATE UNIQUE INDEX payments_bank_line_key ON payments (tenant_id, bank_line_id) WHERE bank_line_id IS NOT NULL AND status = 'POSTED';

    -- The bank statement's webhook event.
    ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
    ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (type IN ('journal-entry.posted', 'journal-entry.reversed',
      'period-close.completed', 'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated',
      'rates.refreshed', 'webhook.test', 'invoice.posted', 'invoice.cancelled', 'payment.posted', 'payment.cancelled',
      'bank-statement.imported'));

    GRANT SELECT, INSERT, UPDATE ON bank_statement_imports, bank_lines TO ${appRole};
    GRANT SELECT, INSERT ON bank_statement_files TO ${appRole};
    REVOKE DELETE, TRUNCATE ON bank_statement_imports, bank_statement_files, bank_lines FROM ${appRole};

    ALTER TABLE bank_statement_imports ENABLE ROW LEVEL SECURITY;
    ALTER TABLE bank_statement_imports FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_statement_imports
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    ALTER TABLE bank_statement_files ENABLE ROW LEVEL SECURITY;
    ALTER TABLE bank_statement_files FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_statement_files
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    ALTER TABLE bank_lines ENABLE ROW LEVEL SECURITY;
    ALTER TABLE bank_lines FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_lines
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DELETE FROM webhook_events WHERE type = 'bank-statement.imported';
    ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
    ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (type IN ('journal-entry.posted', 'journal-entry.reversed',
      'period-close.completed', 'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated',
      'rates.refreshed', 'webhook.test', 'invoice.posted', 'invoice.cancelled', 'payment.posted', 'payment.cancelled'));
    DROP INDEX IF EXISTS payments_bank_line_key;
    ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_bank_line_fk;
    ALTER TABLE payments DROP COLUMN IF EXISTS bank_line_id;
    DROP TABLE IF EXISTS bank_lines;
    DROP TABLE IF EXISTS bank_statement_files;
    DROP TABLE IF EXISTS bank_statement_imports;
  `);
}
