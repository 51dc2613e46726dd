import type { MigrationContext } from './context';

// Foreign currency in the ledger (NAS 22). The functional currency stays UZS: `debit` and `credit` are UZS
// and every entry balances in UZS as before. A line in a foreign currency also carries its currency, its
// amount in that currency, the rate it was converted at, where the rate came from (the stored CBU rate, a
// bank's, or a manual one) and the rate's date. The columns are nullable: lines written before stay as they
// are, without a rewrite.
//
// Rules the database enforces, whatever the application does:
// - a foreign line has all five currency columns or none, and never names UZS (a UZS line has none);
// - its UZS amount is its foreign amount times its rate, rounded half-up to two decimals (round() on a
//   positive NUMERIC is half-up), checked on the row;
// - a foreign amount of zero is a revaluation line: only a revaluation entry (kind REVALUATION) carries
//   those, and its lines are marked as such, checked at commit with the entry's balance;
// - a revaluation entry may be dated on a running close's date (the close posts it after holding back every
//   other posting); everything else keeps the cut-off.
//
// Revaluations (one per company and date unless it failed) record each run: requested by a person or by a
// period close, the entry it posted (none when nothing changed) and its totals. The accounts a revaluation
// brings to the closing rate are monetary accounts (cash, receivables, payables, loans): their ranges are
// data, shared by every company, like the global chart.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_lines
      ADD COLUMN currency text CHECK (currency ~ '^[A-Z]{3}$' AND currency <> 'UZS'),
      ADD COLUMN currency_amount numeric(19, 3) CHECK (currency_amount >= 0),
      ADD COLUMN rate numeric(25, 10) CHECK (rate > 0),
      ADD COLUMN rate_source text CHECK (rate_source IN ('CBU', 'BANK', 'MANUAL')),
      ADD COLUMN rate_date date,
      ADD COLUMN revaluation boolean NOT NULL DEFAULT false,
      ADD CONSTRAINT journal_lines_foreign_complete CHECK (num_nulls(currency, currency_amount, rate, rate_source, rate_date) IN (0, 5)),
      ADD CONSTRAINT journal_lines_conversion CHECK (
        currency_amount IS NULL
        OR (currency_amount > 0 AND debit + credit = round(currency_amount * rate, 2))
        OR (currency_amount = 0 AND revaluation));

    ALTER TABLE journal_entries
      ADD COLUMN kind text NOT NULL DEFAULT 'POSTING' CHECK (kind IN ('POSTING', 'REVALUATION'));
    -- A revaluation has a line per account, subaccount and currency it adjusts: more than a person's 500.
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_line_count_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_line_count_check
      CHECK (line_count >= 2 AND (line_count <= 500 OR kind = 'REVALUATION'));
    ALTER TABLE journal_lines DROP CONSTRAINT journal_lines_line_no_check;
    ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_line_no_check CHECK (line_no >= 1);

    -- The balance sums (trial balance, snapshot, revaluation) read the currency columns too: the period index
    -- carries them, so those sums stay index-only scans.
    DROP INDEX journal_lines_period_idx;
    CREATE INDEX journal_lines_period_idx ON journal_lines (tenant_id, legal_entity_id, entry_date)
      INCLUDE (account_code, subaccount_id, debit, credit, currency, currency_amount);
    -- The latest CBU publication on or before a day, per currency.
    CREATE INDEX exchange_rates_currency_idx ON exchange_rates (source, currency_code, effective_date DESC);

    CREATE OR REPLACE FUNCTION ledger_reject_closed_dates() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE cutoff date; closed date; revaluation boolean;
    BEGIN
      SELECT locked_through, last_closed_date INTO cutoff, closed FROM ledger_states
       WHERE tenant_id = NEW.tenant_id AND legal_entity_id = NEW.legal_entity_id;
      IF cutoff IS NOT NULL AND NEW.entry_date <= cutoff THEN
        IF TG_TABLE_NAME = 'journal_entries' THEN
          revaluation := NEW.kind = 'REVALUATION';
        ELSE
          revaluation := NEW.revaluation;
        END IF;
        -- A running close (cut-off above the last completed close) posts its revaluation on its own date.
        IF NOT (revaluation AND NEW.entry_date = cutoff AND (closed IS NULL OR cutoff > closed)) THEN
          RAISE EXCEPTION 'ledger of % is closed through %: % rejected', NEW.legal_entity_id, cutoff, NEW.entry_date
            USING ERRCODE = 'P0C10', HINT = 'period-closed';
        END IF;
      END IF;
      RETURN NEW;
    END $$;

    -- At commit, each new entry's lines add up to its stored totals and their count, and only a revaluation
    -- entry has revaluation lines (and only those).
    CREATE OR REPLACE FUNCTION ledger_check_entry_lines() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE d numeric; c numeric; n int; marked int;
    BEGIN
      SELECT coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*), count(*) FILTER (WHERE revaluation)
        INTO d, c, n, marked FROM journal_lines
       WHERE tenant_id = NEW.tenant_id AND entry_id = NEW.id;
      IF d <> NEW.total_debit OR c <> NEW.total_credit OR n <> NEW.line_count THEN
        RAISE EXCEPTION 'journal entry % does not balance: lines % / %, % lines', NEW.id, d, c, n
          USING ERRCODE = 'P0C11', HINT = 'unbalanced-entry';
      END IF;
      IF marked <> (CASE WHEN NEW.kind = 'REVALUATION' THEN n ELSE 0 END) THEN
        RAISE EXCEPTION 'journal entry % mixes revaluation lines with a % entry', NEW.id, NEW.kind
          USING ERRCODE = 'P0C13', HINT = 'revaluation-lines';
      END IF;
      RETURN NULL;
    END $$;

    -- Snapshots keep a row per account, subaccount and currency: the foreign balance (debit positive) and its
    -- UZS carrying amount (the debit and credit totals). UZS rows have no currency.
    ALTER TABLE period_close_balances
      ADD COLUMN currency text CHECK (currency ~ '^[A-Z]{3}$'),
      ADD COLUMN currency_balance numeric(23, 3),
      ADD CONSTRAINT period_close_balances_currency CHECK ((currency IS NULL) = (currency_balance IS NULL));
    DROP INDEX period_close_balances_key;
    CREATE UNIQUE INDEX period_close_balances_key ON period_close_balances
      (tenant_id, close_id, account_code, COALESCE(subaccount_id, '00000000-0000-0000-0000-000000000000'), COALESCE(currency, ''));

    CREATE TABLE monetary_account_ranges (
      first_code text NOT NULL CHECK (first_code ~ '^[0-9]{4}$'),
      last_code text NOT NULL CHECK (last_code ~ '^[0-9]{4}$'),
      description text NOT NULL CHECK (length(description) BETWEEN 1 AND 200),
      PRIMARY KEY (first_code),
      CHECK (first_code <= last_code)
    );
    INSERT INTO monetary_account_ranges (first_code, last_code, description) VALUES
      ('0910', '0960', 'Long-term receivables (finance lease, buyers, subdivisions, subsidiaries, personnel, other)'),
      ('4010', '4020', 'Receivables from buyers and customers, bills of exchange received'),
      ('4110', '4120', 'Receivables from subdivisions, subsidiaries and associates'),
      ('4610', '4610', 'Founders'' debts on contributions to the charter capital'),
      ('4710', '4790', 'Personnel debts'),
      ('4810', '4890', 'Receivables from other debtors'),
      ('5010', '5020', 'Cash on hand'),
      ('5110', '5110', 'Settlement account'),
      ('5210', '5220', 'Foreign currency accounts'),
      ('5510', '5530', 'Special bank accounts'),
      ('5610', '5610', 'Cash equivalents'),
      ('5710', '5710', 'Cash in transit'),
      ('5830', '5830', 'Short-term loans granted'),
      ('6010', '6020', 'Payables to suppliers and contractors, bills of exchange issued'),
      ('6110', '6120', 'Payables to subdivisions, subsidiaries and associates'),
      ('6610', '6620', 'Payables to founders'),
      ('6710', '6720', 'Payroll settlements'),
      ('6810', '6840', 'Short-term loans, borrowings, bonds and bills payable'),
      ('6910', '6990', 'Various creditors'),
      ('7010', '7020', 'Long-term payables to suppliers, bills of exchange issued'),
      ('7110', '7120', 'Long-term payables to subdivisions, subsidiaries and associates'),
      ('7810', '7840', 'Long-term loans, borrowings, bonds and bills payable'),
      ('7910', '7920', 'Finance lease liabilities and other long-term payables');
    REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON monetary_account_ranges FROM ${appRole};
    GRANT SELECT ON monetary_account_ranges TO ${appRole};

    CREATE TABLE revaluations (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      revaluation_date date NOT NULL,
      status text NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
      -- Who asked: a person (postRevaluation) or a period close (its step before the snapshot).
      requested_by text NOT NULL CHECK (requested_by IN ('REQUEST', 'PERIOD_CLOSE')),
      close_id uuid,
      requested_by_membership_id uuid,
      requested_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      failure_reason text CHECK (length(failure_reason) <= 500),
      entry_id uuid,
      gain_total numeric(20, 2) CHECK (gain_total >= 0),
      loss_total numeric(20, 2) CHECK (loss_total >= 0),
      correlation_id uuid NOT NULL,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES ledger_states(tenant_id, legal_entity_id),
      FOREIGN KEY (tenant_id, close_id) REFERENCES period_closes(tenant_id, id),
      FOREIGN KEY (tenant_id, entry_id) REFERENCES journal_entries(tenant_id, id),
      CHECK ((requested_by = 'PERIOD_CLOSE') = (close_id IS NOT NULL)),
      CHECK (status = 'COMPLETED' OR entry_id IS NULL),
      CHECK ((status = 'COMPLETED') = (gain_total IS NOT NULL AND loss_total IS NOT NULL))
    );
    CREATE UNIQUE INDEX revaluations_one_per_date ON revaluations (tenant_id, legal_entity_id, revaluation_date) WHERE status <> 'FAILED';
    CREATE INDEX revaluations_company_idx ON revaluations (tenant_id, legal_entity_id, revaluation_date DESC);
    REVOKE DELETE, TRUNCATE ON revaluations FROM ${appRole};
    ALTER TABLE revaluations ENABLE ROW LEVEL SECURITY;
    ALTER TABLE revaluations FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON revaluations
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TABLE IF EXISTS revaluations, monetary_account_ranges;
    DROP INDEX IF EXISTS period_close_balances_key;
    ALTER TABLE period_close_balances DROP COLUMN IF EXISTS currency, DROP COLUMN IF EXISTS currency_balance;
    CREATE UNIQUE INDEX period_close_balances_key
      ON period_close_balances (tenant_id, close_id, account_code, COALESCE(subaccount_id, '00000000-0000-0000-0000-000000000000'));
    DROP INDEX IF EXISTS journal_lines_period_idx;
    CREATE INDEX journal_lines_period_idx ON journal_lines (tenant_id, legal_entity_id, entry_date) INCLUDE (account_code, subaccount_id, debit, credit);
    DROP INDEX IF EXISTS exchange_rates_currency_idx;
    ALTER TABLE journal_lines DROP COLUMN IF EXISTS currency, DROP COLUMN IF EXISTS currency_amount, DROP COLUMN IF EXISTS rate,
      DROP COLUMN IF EXISTS rate_source, DROP COLUMN IF EXISTS rate_date, DROP COLUMN IF EXISTS revaluation;
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_line_count_check;
    ALTER TABLE journal_entries DROP COLUMN IF EXISTS kind;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_line_count_check CHECK (line_count BETWEEN 2 AND 500);
  `);
}
