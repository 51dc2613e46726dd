import type { MigrationContext } from './context';

// The aging (getAgingReport, and the overview's aging totals) reads every invoice of one side dated by the
// report's date that was not a draft, for its counterparty, currency, due date, gross, allocated sum and
// cancellation date: at 100,000 open invoices, a bitmap scan of the invoices' wide rows (their VAT groups, texts,
// numbers) took a third of the report. The index it reads them by (the VAT register's, same key, same
// predicate) now carries those columns, so the aging reads the index alone (heap pages all-visible, as
// autovacuum leaves them; a page changed since is read from the heap as before).

const KEY = 'invoices (tenant_id, legal_entity_id, kind, invoice_date)';

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX invoices_vat_register_idx;
    CREATE INDEX invoices_vat_register_idx ON ${KEY}
      INCLUDE (id, counterparty_id, currency, due_date, total_gross, allocated, cancellation_date) WHERE status <> 'DRAFT';
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX IF EXISTS invoices_vat_register_idx;
    CREATE INDEX invoices_vat_register_idx ON ${KEY} WHERE status <> 'DRAFT';
  `);
}
