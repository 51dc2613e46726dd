import type { MigrationContext } from './context';

// A counterparty is an analytic dimension of journal lines: a line may name one of its company's
// counterparties. The foreign key runs through the company as well (tenant, company, counterparty), so a
// line can only name a counterparty of its own company, whatever the application checks; a unique key on
// counterparties gives it a target (the primary key is (tenant_id, id)). Lines stay append-only: the row
// trigger journal_lines_append_only rejects every UPDATE and DELETE, whichever column, so the new column is
// covered as it is. The period-close snapshots stay per account, subaccount and currency: balances by
// counterparty will be read from the lines (no index yet: no report reads by counterparty so far, and the
// foreign key needs none on this side, since a counterparty is never deleted and its key never changes).
// The company setting requireCounterpartyOnSettlements (off by default: clients that name no counterparty
// keep posting) is a column of company_accounting_settings.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE counterparties ADD CONSTRAINT counterparties_company_key UNIQUE (tenant_id, legal_entity_id, id);
    ALTER TABLE journal_lines ADD COLUMN counterparty_id uuid;
    ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_counterparty_fkey
      FOREIGN KEY (tenant_id, legal_entity_id, counterparty_id) REFERENCES counterparties (tenant_id, legal_entity_id, id);
    ALTER TABLE company_accounting_settings ADD COLUMN require_counterparty_on_settlements boolean NOT NULL DEFAULT false;
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE company_accounting_settings DROP COLUMN IF EXISTS require_counterparty_on_settlements;
    ALTER TABLE journal_lines DROP CONSTRAINT IF EXISTS journal_lines_counterparty_fkey;
    ALTER TABLE journal_lines DROP COLUMN IF EXISTS counterparty_id;
    ALTER TABLE counterparties DROP CONSTRAINT IF EXISTS counterparties_company_key;
  `);
}
