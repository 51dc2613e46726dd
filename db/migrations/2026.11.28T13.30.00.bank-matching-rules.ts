import type { MigrationContext } from './context';

// The company's rules for matching bank statement lines, and a line settled by an entry of its own (a bank
// fee to an expense account) rather than by a payment. A rule is tried in order of priority: all of its
// conditions must hold; its action proposes invoices of the line's counterparty or an account to post to. A
// line posted to an account names its entry, and the entry its line (source BANK_LINE).

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE bank_matching_rules (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = btrim(name)),
      priority integer NOT NULL CHECK (priority BETWEEN 1 AND 10000),
      enabled boolean NOT NULL DEFAULT true,
      conditions jsonb NOT NULL CHECK (jsonb_typeof(conditions) = 'object'),
      action_type text NOT NULL CHECK (action_type IN ('SETTLE_INVOICES', 'POST_TO_ACCOUNT')),
      account_code text CHECK (account_code ~ '^[0-9]{4}$'),
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      CONSTRAINT bank_matching_rules_action CHECK ((action_type = 'POST_TO_ACCOUNT') = (account_code IS NOT NULL))
    );
    CREATE INDEX bank_matching_rules_order_idx ON bank_matching_rules (tenant_id, legal_entity_id, priority, created_at, id);
    GRANT SELECT, INSERT, UPDATE, DELETE ON bank_matching_rules TO ${appRole};
    ALTER TABLE bank_matching_rules ENABLE ROW LEVEL SECURITY;
    ALTER TABLE bank_matching_rules FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON bank_matching_rules
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

    -- A line settled by an entry of its own (POST_TO_ACCOUNT) names it; a line is matched by a payment or an entry.
    ALTER TABLE bank_lines ADD COLUMN entry_id uuid;
    ALTER TABLE bank_lines ADD CONSTRAINT bank_lines_entry_fk FOREIGN KEY (tenant_id, entry_id) REFERENCES journal_entries(tenant_id, id);
    ALTER TABLE bank_lines DROP CONSTRAINT bank_lines_match;
    ALTER TABLE bank_lines ADD CONSTRAINT bank_lines_match CHECK (
      (status = 'MATCHED') = (num_nonnulls(payment_id, entry_id) = 1) AND num_nonnulls(payment_id, entry_id) <= 1
      AND (status = 'MATCHED') = (matched_at IS NOT NULL)
      AND (status <> 'PROPOSED' OR proposal IS NOT NULL)
    );

    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_source_type_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_source_type_check CHECK (source_type IN ('INVOICE', 'PAYMENT', 'BANK_LINE'));
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_source_type_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_source_type_check CHECK (source_type IN ('INVOICE', 'PAYMENT'));
    ALTER TABLE bank_lines DROP CONSTRAINT bank_lines_match;
    ALTER TABLE bank_lines ADD CONSTRAINT bank_lines_match CHECK (
      (status = 'MATCHED') = (payment_id IS NOT NULL) AND (status = 'MATCHED') = (matched_at IS NOT NULL)
      AND (status <> 'PROPOSED' OR proposal IS NOT NULL)
    );
    ALTER TABLE bank_lines DROP CONSTRAINT IF EXISTS bank_lines_entry_fk;
    ALTER TABLE bank_lines DROP COLUMN IF EXISTS entry_id;
    DROP TABLE IF EXISTS bank_matching_rules;
  `);
}
