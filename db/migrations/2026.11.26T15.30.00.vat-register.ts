import type { MigrationContext } from './context';

// The monthly VAT register (getVatRegister) reads one side's invoices of a month twice: those dated in it
// (posted or cancelled since) and those cancelled in it (their reversals, dated the cancellation). The list's
// index (invoices_list_idx: company, date) would serve the first only by reading both sides' invoices of the
// month and the drafts, and nothing serves the second but every invoice of the company. Two partial indexes,
// per side and date: the invoices that are in the ledger by their date, the cancelled ones by the
// cancellation's date. A draft is in neither, so drafts cost them nothing; an invoice enters the first when
// posted and the second when cancelled.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE INDEX invoices_vat_register_idx ON invoices (tenant_id, legal_entity_id, kind, invoice_date) WHERE status <> 'DRAFT';
    CREATE INDEX invoices_cancellation_idx ON invoices (tenant_id, legal_entity_id, kind, cancellation_date) WHERE status = 'CANCELLED';
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX IF EXISTS invoices_cancellation_idx;
    DROP INDEX IF EXISTS invoices_vat_register_idx;
  `);
}
