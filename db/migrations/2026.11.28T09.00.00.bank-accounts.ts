import type { MigrationContext } from './context';

// The company's own bank accounts, the register a bank statement import is made into. Its rules hold in the
// database as well as in the API: the bank code (MFO) of 5 digits, the account number of 20, unique per
// company (archived accounts included), an ISO currency code, a trimmed name that is not empty, and the GL
// account an existing detail account of the company's chart in 5100–5290 (a trigger, since the chart is the
// global chart merged with the company's own accounts). There is no delete: an account is archived, since
// imported statements will refer to it. Row-level security as on every tenant table.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE bank_accounts (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      bank_code text NOT NULL CHECK (bank_code ~ '^[0-9]{5}$'),
      account_number text NOT NULL CHECK (account_number ~ '^[0-9]{20}$'),
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      account_code text NOT NULL CHECK (account_code ~ '^[0-9]{4}$' AND account_code BETWEEN '5100' AND '5290'),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = btrim(name)),
      archived boolean NOT NULL DEFAULT false,
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      CONSTRAINT bank_accounts_account_number_key UNIQUE (tenant_id, legal_entity_id, account_number)
    );
    -- The list's order within a company and its filter (ordered by name then id).
    CREATE INDEX bank_accounts_name_idx ON bank_accounts (tenant_id, legal_entity_id, archived, name, id);

    -- The GL account is one of the company's chart (a global account or the company's custom one) and not a
    -- header (a global group with accounts under it, 5100 or 5200): lines are posted to detail accounts.
    CREATE FUNCTION bank_accounts_detail_account() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM global_accounts WHERE parent_code = NEW.account_code) THEN
        RAISE EXCEPTION 'account % is a header account: a bank account goes on one of its detail accounts', NEW.account_code
          USING ERRCODE = 'P0C12', HINT = 'header-account';
      END IF;
      IF NOT EXISTS (SELECT 1 FROM global_accounts WHERE code = NEW.account_code)
         AND NOT EXISTS (SELECT 1 FROM company_accounts
                          WHERE tenant_id = NEW.tenant_id AND legal_entity_id = NEW.legal_entity_id AND code = NEW.account_code AND custom) THEN
        RAISE EXCEPTION 'no account % in the company''s chart', NEW.account_code USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER bank_accounts_detail_account BEFORE INSERT OR UPDATE OF account_code ON bank_accounts
      FOR EACH ROW EXECUTE FUNCTION bank_accounts_detail_account();

    -- Archived, never deleted: statements will refer to bank accounts.
    GRANT SELECT, INSERT, UPDATE ON bank_accounts TO ${appRole};
    REVOKE DELETE, TRUNCATE ON bank_accounts FROM ${appRole};

    ALTER TABLE bank_accounts ENABLE ROW LEVEL SECURITY;
    ALTER TABLE bank_accounts FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_accounts
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TABLE IF EXISTS bank_accounts;
    DROP FUNCTION IF EXISTS bank_accounts_detail_account();
  `);
}
