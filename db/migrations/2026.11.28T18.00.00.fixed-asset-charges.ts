import type { MigrationContext } from './context';

// The depreciation subledger: every month charged to an asset, by which entry and on which date. A close's
// DEPRECIATION entry and a disposal's entry write their charges here in the same commit; the register at a
// date adds up the charges of the entries dated by it, so it ties to the 02xx balances at any date. An asset's
// month is charged once, whatever retries or repeated closes happen: the primary key refuses a second charge.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE fixed_asset_charges (
      tenant_id uuid NOT NULL,
      asset_id uuid NOT NULL,
      month date NOT NULL CHECK (month = date_trunc('month', month)::date),
      amount numeric(20, 2) NOT NULL CHECK (amount > 0),
      entry_id uuid NOT NULL,
      entry_date date NOT NULL,
      PRIMARY KEY (tenant_id, asset_id, month),
      FOREIGN KEY (tenant_id, asset_id) REFERENCES fixed_assets(tenant_id, id),
      FOREIGN KEY (tenant_id, entry_id) REFERENCES journal_entries(tenant_id, id)
    );
    CREATE INDEX fixed_asset_charges_entry_idx ON fixed_asset_charges (tenant_id, entry_id);

    GRANT SELECT, INSERT ON fixed_asset_charges TO ${appRole};
    REVOKE UPDATE, DELETE, TRUNCATE ON fixed_asset_charges FROM ${appRole};
    ALTER TABLE fixed_asset_charges ENABLE ROW LEVEL SECURITY;
    ALTER TABLE fixed_asset_charges FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON fixed_asset_charges
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

    ALTER TABLE fixed_assets ADD COLUMN disposal_account text CHECK (disposal_account ~ '^[0-9]{4}$');
    ALTER TABLE fixed_assets ADD CONSTRAINT fixed_assets_disposal_account CHECK ((disposed_on IS NULL) = (disposal_account IS NULL));
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE fixed_assets DROP CONSTRAINT fixed_assets_disposal_account;
    ALTER TABLE fixed_assets DROP COLUMN disposal_account;
    DROP TABLE IF EXISTS fixed_asset_charges;
  `);
}
