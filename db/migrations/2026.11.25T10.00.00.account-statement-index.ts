import type { MigrationContext } from './context';

// The account statement reads one account's lines of a date range in journal order, with running sums: an
// index by account and date finds them without reading the other accounts' lines of the range.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE INDEX journal_lines_account_idx ON journal_lines (tenant_id, legal_entity_id, account_code, entry_date)
      INCLUDE (subaccount_id, debit, credit, currency, currency_amount);
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP INDEX IF EXISTS journal_lines_account_idx;`);
}
