import type { MigrationContext } from './context';

// The general ledger: journal entries and their lines (append-only), per-company ledger state (entry
// counter and closing cut-off), period closes and their balance snapshots (append-only).
//
// Rules the database itself enforces, whatever the application does:
// - entries, lines and snapshots reject UPDATE and DELETE (trigger, and no grant to the application role);
// - nothing dated at or before the company's closing cut-off can be inserted (trigger);
// - an entry balances: its stored totals are equal, and its lines sum to them at commit (deferred trigger);
// - a line carries exactly one positive side; its date is its entry's date (composite foreign key).
// Amounts are NUMERIC(20,2) in the company's functional currency. A currency code and a foreign amount can
// be added to journal_lines later as nullable columns without rewriting what is there.

const TENANT_TABLES = ['ledger_states', 'journal_entries', 'journal_lines', 'period_closes', 'period_close_balances'];
const APPEND_ONLY = ['journal_entries', 'journal_lines', 'period_close_balances'];

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE ledger_states (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      next_entry_number bigint NOT NULL DEFAULT 1 CHECK (next_entry_number >= 1),
      -- Nothing dated at or before this may be posted: the last completed close, or a running close's date.
      locked_through date,
      last_closed_date date,
      PRIMARY KEY (tenant_id, legal_entity_id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      CHECK (last_closed_date IS NULL OR locked_through >= last_closed_date)
    );

    CREATE TABLE journal_entries (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      number bigint NOT NULL CHECK (number >= 1),
      entry_date date NOT NULL,
      description text NOT NULL CHECK (length(description) BETWEEN 1 AND 500),
      reference text CHECK (length(reference) <= 100),
      request_id uuid NOT NULL,
      request_hash text NOT NULL,
      reversal_of uuid,
      total_debit numeric(20, 2) NOT NULL CHECK (total_debit > 0),
      total_credit numeric(20, 2) NOT NULL,
      line_count int NOT NULL CHECK (line_count BETWEEN 2 AND 500),
      posted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      posted_by_membership_id uuid,
      correlation_id uuid NOT NULL,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, id, entry_date),
      UNIQUE (tenant_id, legal_entity_id, number),
      UNIQUE (tenant_id, legal_entity_id, request_id),
      -- At most one reversal per entry.
      UNIQUE (tenant_id, reversal_of),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES ledger_states(tenant_id, legal_entity_id),
      FOREIGN KEY (tenant_id, reversal_of) REFERENCES journal_entries(tenant_id, id),
      CHECK (total_debit = total_credit)
    );
    CREATE INDEX journal_entries_date_idx ON journal_entries (tenant_id, legal_entity_id, entry_date, number);

    CREATE TABLE journal_lines (
      tenant_id uuid NOT NULL,
      entry_id uuid NOT NULL,
      line_no int NOT NULL CHECK (line_no BETWEEN 1 AND 500),
      legal_entity_id uuid NOT NULL,
      entry_date date NOT NULL,
      account_code text NOT NULL CHECK (account_code ~ '^[0-9]{4}$'),
      subaccount_id uuid,
      debit numeric(20, 2) NOT NULL CHECK (debit >= 0),
      credit numeric(20, 2) NOT NULL CHECK (credit >= 0),
      memo text CHECK (length(memo) <= 500),
      PRIMARY KEY (tenant_id, entry_id, line_no),
      FOREIGN KEY (tenant_id, entry_id, entry_date) REFERENCES journal_entries(tenant_id, id, entry_date),
      FOREIGN KEY (tenant_id, subaccount_id) REFERENCES company_subaccounts(tenant_id, id),
      CHECK ((debit > 0) <> (credit > 0))
    );
    CREATE INDEX journal_lines_period_idx ON journal_lines (tenant_id, legal_entity_id, entry_date)
      INCLUDE (account_code, subaccount_id, debit, credit);

    CREATE TABLE period_closes (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      close_date date NOT NULL,
      request_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
      failure_reason text,
      requested_at timestamptz NOT NULL DEFAULT now(),
      requested_by_membership_id uuid,
      completed_at timestamptz,
      entry_count bigint,
      correlation_id uuid NOT NULL,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, legal_entity_id, request_id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES ledger_states(tenant_id, legal_entity_id)
    );
    -- One close runs at a time per company, and a date is closed at most once.
    CREATE UNIQUE INDEX period_closes_one_running ON period_closes (tenant_id, legal_entity_id) WHERE status = 'RUNNING';
    CREATE UNIQUE INDEX period_closes_one_per_date ON period_closes (tenant_id, legal_entity_id, close_date) WHERE status <> 'FAILED';

    -- Cumulative totals per account and subaccount from the first entry through the close date.
    CREATE TABLE period_close_balances (
      tenant_id uuid NOT NULL,
      close_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      close_date date NOT NULL,
      account_code text NOT NULL,
      subaccount_id uuid,
      debit_total numeric(22, 2) NOT NULL,
      credit_total numeric(22, 2) NOT NULL,
      FOREIGN KEY (tenant_id, close_id) REFERENCES period_closes(tenant_id, id)
    );
    CREATE UNIQUE INDEX period_close_balances_key
      ON period_close_balances (tenant_id, close_id, account_code, COALESCE(subaccount_id, '00000000-0000-0000-0000-000000000000'));

    CREATE FUNCTION ledger_reject_closed_dates() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE cutoff date;
    BEGIN
      SELECT locked_through INTO cutoff FROM ledger_states
       WHERE tenant_id = NEW.tenant_id AND legal_entity_id = NEW.legal_entity_id;
      IF cutoff IS NOT NULL AND NEW.entry_date <= cutoff THEN
        RAISE EXCEPTION 'ledger of % is closed through %: % rejected', NEW.legal_entity_id, cutoff, NEW.entry_date
          USING ERRCODE = 'P0C10', HINT = 'period-closed';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER journal_entries_open_period BEFORE INSERT ON journal_entries
      FOR EACH ROW EXECUTE FUNCTION ledger_reject_closed_dates();
    CREATE TRIGGER journal_lines_open_period BEFORE INSERT ON journal_lines
      FOR EACH ROW EXECUTE FUNCTION ledger_reject_closed_dates();

    -- At commit, each new entry's lines add up to its stored totals and their count.
    CREATE FUNCTION ledger_check_entry_lines() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE d numeric; c numeric; n int;
    BEGIN
      SELECT coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*) INTO d, c, n FROM journal_lines
       WHERE tenant_id = NEW.tenant_id AND entry_id = NEW.id;
      IF d <> NEW.total_debit OR c <> NEW.total_credit OR n <> NEW.line_count THEN
        RAISE EXCEPTION 'journal entry % does not balance: lines % / %, % lines', NEW.id, d, c, n
          USING ERRCODE = 'P0C11', HINT = 'unbalanced-entry';
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_lines();
  `);
  for (const table of APPEND_ONLY) {
    await sql(`
      CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION reject_mutation();
      CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION reject_mutation();
      REVOKE UPDATE, DELETE, TRUNCATE ON ${table} FROM ${appRole};
    `);
  }
  await sql(`REVOKE DELETE, TRUNCATE ON ledger_states, period_closes FROM ${appRole};`);
  for (const table of TENANT_TABLES) {
    await sql(`
      ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
      CREATE POLICY tenant_isolation ON ${table}
        USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    `);
  }
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TABLE IF EXISTS period_close_balances, period_closes, journal_lines, journal_entries, ledger_states;
    DROP FUNCTION IF EXISTS ledger_check_entry_lines();
    DROP FUNCTION IF EXISTS ledger_reject_closed_dates();
  `);
}
