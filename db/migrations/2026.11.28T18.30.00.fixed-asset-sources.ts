import type { MigrationContext } from './context';

// An asset's cost may come from a line of a posted PURCHASE invoice (the purchase debited the capital
// investment account, 08xx, that the commissioning then credits): the asset names the line, one asset per
// line, and keeps it once commissioned. The trigger that freezes a commissioned asset's figures takes the
// source in; the invoice's own rules (a posted invoice is frozen) keep the line as it was.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE fixed_assets ADD COLUMN source_invoice_id uuid, ADD COLUMN source_line_no integer;
    ALTER TABLE fixed_assets ADD CONSTRAINT fixed_assets_source_line CHECK ((source_invoice_id IS NULL) = (source_line_no IS NULL));
    ALTER TABLE fixed_assets ADD CONSTRAINT fixed_assets_source_line_fkey
      FOREIGN KEY (tenant_id, source_invoice_id, source_line_no) REFERENCES invoice_lines(tenant_id, invoice_id, line_no);
    CREATE UNIQUE INDEX fixed_assets_source_line_key ON fixed_assets (tenant_id, source_invoice_id, source_line_no) WHERE source_invoice_id IS NOT NULL;

    CREATE OR REPLACE FUNCTION fixed_assets_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.status <> 'DRAFT' AND (
           NEW.asset_account, NEW.depreciation_account, NEW.expense_account, NEW.source_account, NEW.cost, NEW.salvage_value,
           NEW.useful_life_months, NEW.commissioned_on, NEW.commissioning_entry_id, NEW.inventory_number, NEW.source_invoice_id, NEW.source_line_no
         ) IS DISTINCT FROM (
           OLD.asset_account, OLD.depreciation_account, OLD.expense_account, OLD.source_account, OLD.cost, OLD.salvage_value,
           OLD.useful_life_months, OLD.commissioned_on, OLD.commissioning_entry_id, OLD.inventory_number, OLD.source_invoice_id, OLD.source_line_no
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
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX IF EXISTS fixed_assets_source_line_key;
    ALTER TABLE fixed_assets DROP CONSTRAINT IF EXISTS fixed_assets_source_line_fkey;
    ALTER TABLE fixed_assets DROP CONSTRAINT IF EXISTS fixed_assets_source_line;
    ALTER TABLE fixed_assets DROP COLUMN IF EXISTS source_invoice_id, DROP COLUMN IF EXISTS source_line_no;
  `);
}
