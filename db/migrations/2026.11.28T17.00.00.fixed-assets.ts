import type { MigrationContext } from './context';

// The fixed-asset register (NAS 5, straight line): an asset is prepared as a DRAFT, commissioned (an entry
// Dr its asset account / Cr its source, 0820 by default), depreciated month by month by the period closes,
// and disposed of. Its figures (cost, salvage value, useful life, accounts) are frozen once it is
// commissioned, in the database too: the schedule the closes charge never changes under them.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE fixed_assets (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      inventory_number text NOT NULL CHECK (length(inventory_number) BETWEEN 1 AND 50 AND inventory_number = btrim(inventory_number)),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 300 AND name = btrim(name)),
      asset_account text NOT NULL CHECK (asset_account ~ '^01[1-9][0-9]$' AND asset_account <> '0110'),
      depreciation_account text NOT NULL CHECK (depreciation_account ~ '^02[1-9][0-9]$'),
      expense_account text NOT NULL CHECK (expense_account ~ '^[0-9]{4}$'),
      source_account text NOT NULL CHECK (source_account ~ '^[0-9]{4}$'),
      cost numeric(20, 2) NOT NULL CHECK (cost > 0),
      salvage_value numeric(20, 2) NOT NULL DEFAULT 0 CHECK (salvage_value >= 0 AND salvage_value <= cost),
      useful_life_months integer NOT NULL CHECK (useful_life_months BETWEEN 1 AND 1200),
      status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'IN_SERVICE', 'FULLY_DEPRECIATED', 'DISPOSED')),
      commissioned_on date,
      commissioning_entry_id uuid,
      -- The first day of the last month charged, by a close or a disposal; null before the first charge.
      depreciated_through date CHECK (depreciated_through = date_trunc('month', depreciated_through)::date),
      accumulated_depreciation numeric(20, 2) NOT NULL DEFAULT 0 CHECK (accumulated_depreciation >= 0 AND accumulated_depreciation <= cost - salvage_value),
      disposed_on date,
      disposal_entry_id uuid,
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      FOREIGN KEY (tenant_id, commissioning_entry_id) REFERENCES journal_entries(tenant_id, id),
      FOREIGN KEY (tenant_id, disposal_entry_id) REFERENCES journal_entries(tenant_id, id),
      CONSTRAINT fixed_assets_inventory_number_key UNIQUE (tenant_id, legal_entity_id, inventory_number),
      CONSTRAINT fixed_assets_state CHECK (
        (status = 'DRAFT') = (commissioned_on IS NULL)
        AND (commissioned_on IS NULL) = (commissioning_entry_id IS NULL)
        AND (status = 'DISPOSED') = (disposed_on IS NOT NULL)
        AND (disposed_on IS NULL) = (disposal_entry_id IS NULL)
        AND (disposed_on IS NULL OR disposed_on >= commissioned_on)
        AND (status <> 'DRAFT' OR (depreciated_through IS NULL AND accumulated_depreciation = 0))
        AND (depreciated_through IS NULL OR depreciated_through > commissioned_on)
      )
    );
    CREATE INDEX fixed_assets_company_idx ON fixed_assets (tenant_id, legal_entity_id, status, inventory_number);

    -- What the closes charge is decided by these figures: after commissioning they stay as they were.
    CREATE FUNCTION fixed_assets_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.status <> 'DRAFT' AND (
           NEW.asset_account, NEW.depreciation_account, NEW.expense_account, NEW.source_account, NEW.cost, NEW.salvage_value,
           NEW.useful_life_months, NEW.commissioned_on, NEW.commissioning_entry_id, NEW.inventory_number
         ) IS DISTINCT FROM (
           OLD.asset_account, OLD.depreciation_account, OLD.expense_account, OLD.source_account, OLD.cost, OLD.salvage_value,
           OLD.useful_life_months, OLD.commissioned_on, OLD.commissioning_entry_id, OLD.inventory_number
         ) THEN
        RAISE EXCEPTION 'a commissioned asset keeps its figures' USING ERRCODE = 'P0C20';
      END IF;
      IF OLD.status = 'DISPOSED' AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'a disposed asset is not changed' USING ERRCODE = 'P0C20';
      END IF;
      IF NEW.accumulated_depreciation < OLD.accumulated_depreciation OR NEW.depreciated_through < OLD.depreciated_through THEN
        RAISE EXCEPTION 'depreciation is never taken back' USING ERRCODE = 'P0C20';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER fixed_assets_frozen BEFORE UPDATE ON fixed_assets FOR EACH ROW EXECUTE FUNCTION fixed_assets_frozen();

    GRANT SELECT, INSERT, UPDATE ON fixed_assets TO ${appRole};
    REVOKE DELETE, TRUNCATE ON fixed_assets FROM ${appRole};
    ALTER TABLE fixed_assets ENABLE ROW LEVEL SECURITY;
    ALTER TABLE fixed_assets FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON fixed_assets
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_source_type_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_source_type_check CHECK (source_type IN ('INVOICE', 'PAYMENT', 'BANK_LINE', 'FIXED_ASSET'));
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_source_type_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_source_type_check CHECK (source_type IN ('INVOICE', 'PAYMENT', 'BANK_LINE'));
    DROP TABLE IF EXISTS fixed_assets;
    DROP FUNCTION IF EXISTS fixed_assets_frozen();
  `);
}
