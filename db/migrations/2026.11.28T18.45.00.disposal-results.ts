import type { MigrationContext } from './context';

// The result of disposing of fixed assets: a disposal's entry leaves the net book value on 9210 and a SALES
// invoice of the proceeds credits 9210, so that its balance is the gain or the loss. Each period close moves
// that balance to 9310 (gain) or 9430 (loss) in one system entry of kind DISPOSAL, on the close's date.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN ('POSTING', 'REVALUATION', 'YEAR_END_CLOSING', 'DEPRECIATION', 'DISPOSAL'));
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN ('POSTING', 'REVALUATION', 'YEAR_END_CLOSING', 'DEPRECIATION'));
  `);
}
