import type { MigrationContext } from './context';

// The register of customers and suppliers (counterparties) of a company, the first table of the documents
// domain. Its rules hold in the database as well as in the API: the formats (TIN 9 digits, PINFL 14, VAT
// code 12, bank code 5, account number 20), a TIN or a PINFL but not both, unique per company when given
// (archived counterparties included), at most 10 bank accounts without repeats, payment terms 0..365 days,
// a trimmed name that is not empty. There is no delete: a counterparty is archived, since documents will
// refer to it. Row-level security as on every tenant table. The name search is a literal ILIKE served by a
// trigram index (pg_trgm, a trusted extension the database owner may create).

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;

    -- A bank account list: a JSON array of at most 10 objects, each exactly {bankCode, accountNumber} as digit
    -- strings of 5 and 20, no pair twice.
    CREATE FUNCTION counterparty_bank_accounts_valid(accounts jsonb) RETURNS boolean
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
      item jsonb;
      seen text[] := '{}';
      pair text;
    BEGIN
      IF accounts IS NULL OR jsonb_typeof(accounts) <> 'array' THEN RETURN false; END IF;
      IF jsonb_array_length(accounts) > 10 THEN RETURN false; END IF;
      FOR item IN SELECT value FROM jsonb_array_elements(accounts) LOOP
        IF jsonb_typeof(item) <> 'object' THEN RETURN false; END IF;
        IF (SELECT count(*) FROM jsonb_object_keys(item)) <> 2 THEN RETURN false; END IF;
        IF jsonb_typeof(item -> 'bankCode') IS DISTINCT FROM 'string' OR jsonb_typeof(item -> 'accountNumber') IS DISTINCT FROM 'string' THEN
          RETURN false;
        END IF;
        IF (item ->> 'bankCode') !~ '^[0-9]{5}$' OR (item ->> 'accountNumber') !~ '^[0-9]{20}$' THEN RETURN false; END IF;
        pair := (item ->> 'bankCode') || '/' || (item ->> 'accountNumber');
        IF pair = ANY (seen) THEN RETURN false; END IF;
        seen := seen || pair;
      END LOOP;
      RETURN true;
    END $$;

    CREATE TABLE counterparties (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = btrim(name)),
      tin text CHECK (tin ~ '^[0-9]{9}$'),
      pinfl text CHECK (pinfl ~ '^[0-9]{14}$'),
      vat_registration_code text CHECK (vat_registration_code ~ '^[0-9]{12}$'),
      bank_accounts jsonb NOT NULL DEFAULT '[]' CHECK (counterparty_bank_accounts_valid(bank_accounts)),
      address text CHECK (length(address) BETWEEN 1 AND 500 AND address = btrim(address)),
      payment_terms_days integer NOT NULL DEFAULT 0 CHECK (payment_terms_days BETWEEN 0 AND 365),
      archived boolean NOT NULL DEFAULT false,
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      CONSTRAINT counterparties_tin_or_pinfl CHECK (tin IS NULL OR pinfl IS NULL)
    );
    -- Unique per company when given; text_pattern_ops also serves the list's prefix search (tin LIKE '301%').
    CREATE UNIQUE INDEX counterparties_tin_key ON counterparties (tenant_id, legal_entity_id, tin text_pattern_ops) WHERE tin IS NOT NULL;
    CREATE UNIQUE INDEX counterparties_pinfl_key ON counterparties (tenant_id, legal_entity_id, pinfl text_pattern_ops) WHERE pinfl IS NOT NULL;
    -- The list's order within a company and filter (ordered by name then id), and the name search.
    CREATE INDEX counterparties_name_idx ON counterparties (tenant_id, legal_entity_id, archived, name, id);
    CREATE INDEX counterparties_name_search_idx ON counterparties USING gin (name gin_trgm_ops);

    -- Archived, never deleted: documents will refer to counterparties.
    GRANT SELECT, INSERT, UPDATE ON counterparties TO ${appRole};
    REVOKE DELETE, TRUNCATE ON counterparties FROM ${appRole};

    ALTER TABLE counterparties ENABLE ROW LEVEL SECURITY;
    ALTER TABLE counterparties FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON counterparties
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  // pg_trgm stays: other tables may come to use it, and dropping an extension is the database owner's call.
  await sql(`
    DROP TABLE IF EXISTS counterparties;
    DROP FUNCTION IF EXISTS counterparty_bank_accounts_valid(jsonb);
  `);
}
