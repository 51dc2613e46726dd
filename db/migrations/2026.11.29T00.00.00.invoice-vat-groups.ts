import type { MigrationContext } from './context';

// The VAT register's rows are an invoice's posted lines summed per VAT rate ("groups"). A page summed the whole
// month's groups for its totals and its count, one index probe into invoice_lines per invoice: about 200 ms for
// a month of 20,000 invoices. The groups are now written on the invoice as it is posted (`vat_groups`, a JSON
// array of {rate, net, vat} in UZS, exempt last), by a trigger from its lines' UZS amounts, so the register reads
// the month's invoices alone. A posted invoice's groups never change: the trigger keeps the stored ones on any
// later update (allocations, cancellation).

const GROUPS_OF = (invoice: string) => `(
  SELECT coalesce(jsonb_agg(jsonb_build_object('rate', g.vat_rate, 'net', g.net, 'vat', g.vat) ORDER BY g.vat_rate NULLS LAST), '[]')
    FROM (SELECT l.vat_rate, sum(l.net_uzs) AS net, sum(l.vat_uzs) AS vat
            FROM invoice_lines l WHERE l.tenant_id = ${invoice}.tenant_id AND l.invoice_id = ${invoice}.id
           GROUP BY l.vat_rate) g)`;

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE invoices ADD COLUMN vat_groups jsonb;
    -- The owner runs migrations and is bound by row-level security too: it is lifted for the backfill.
    ALTER TABLE invoices NO FORCE ROW LEVEL SECURITY;
    ALTER TABLE invoice_lines NO FORCE ROW LEVEL SECURITY;
    UPDATE invoices i SET vat_groups = ${GROUPS_OF('i')} WHERE i.status <> 'DRAFT';
    -- The update queued the invoices' deferred checks; they run now, as ALTER TABLE refuses a table with
    -- pending trigger events.
    SET CONSTRAINTS ALL IMMEDIATE;
    ALTER TABLE invoices FORCE ROW LEVEL SECURITY;
    ALTER TABLE invoice_lines FORCE ROW LEVEL SECURITY;
    ALTER TABLE invoices ADD CONSTRAINT invoices_vat_groups_posted CHECK ((status = 'DRAFT') = (vat_groups IS NULL));

    CREATE FUNCTION invoices_vat_groups() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
      IF OLD.status = 'DRAFT' AND NEW.status <> 'DRAFT' THEN
        NEW.vat_groups := ${GROUPS_OF('NEW')};
      ELSE
        NEW.vat_groups := OLD.vat_groups;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER invoices_vat_groups BEFORE UPDATE ON invoices
      FOR EACH ROW EXECUTE FUNCTION invoices_vat_groups();
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TRIGGER IF EXISTS invoices_vat_groups ON invoices;
    DROP FUNCTION IF EXISTS invoices_vat_groups();
    ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_vat_groups_posted;
    ALTER TABLE invoices DROP COLUMN IF EXISTS vat_groups;
  `);
}
