import type { MigrationContext } from './context';

// The account statement reads one account's lines of a date range in journal order (date, entry number,
// line), with running sums. Each line carries its entry's number, and the foreign key from the line to its
// entry now includes it, so the copy can never differ from the entry. An index by account in that order,
// with the amounts included, gives a page and the running sums before it from the index alone, without
// joining the entries of the whole range. The period index takes the same order after the date, so the
// journal's lines are read in journal order and merged with the entries' date index (the exports).

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_lines ADD COLUMN entry_number bigint;
    ALTER TABLE journal_lines DISABLE TRIGGER journal_lines_append_only;
    UPDATE journal_lines l SET entry_number = e.number FROM journal_entries e WHERE e.tenant_id = l.tenant_id AND e.id = l.entry_id;
    ALTER TABLE journal_lines ENABLE TRIGGER journal_lines_append_only;
    ALTER TABLE journal_lines ALTER COLUMN entry_number SET NOT NULL;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_line_reference_key UNIQUE (tenant_id, id, entry_date, number);
    ALTER TABLE journal_lines DROP CONSTRAINT journal_lines_tenant_id_entry_id_entry_date_fkey;
    ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_entry_fkey
      FOREIGN KEY (tenant_id, entry_id, entry_date, entry_number) REFERENCES journal_entries(tenant_id, id, entry_date, number);
    CREATE INDEX journal_lines_account_idx ON journal_lines (tenant_id, legal_entity_id, account_code, entry_date, entry_number, line_no)
      INCLUDE (entry_id, subaccount_id, debit, credit, currency, currency_amount);
    DROP INDEX journal_lines_period_idx;
    CREATE INDEX journal_lines_period_idx ON journal_lines (tenant_id, legal_entity_id, entry_date, entry_number, line_no)
      INCLUDE (account_code, subaccount_id, debit, credit, currency, currency_amount);
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX IF EXISTS journal_lines_account_idx;
    DROP INDEX IF EXISTS journal_lines_period_idx;
    CREATE INDEX journal_lines_period_idx ON journal_lines (tenant_id, legal_entity_id, entry_date)
      INCLUDE (account_code, subaccount_id, debit, credit, currency, currency_amount);
    ALTER TABLE journal_lines DROP CONSTRAINT IF EXISTS journal_lines_entry_fkey;
    ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_tenant_id_entry_id_entry_date_fkey
      FOREIGN KEY (tenant_id, entry_id, entry_date) REFERENCES journal_entries(tenant_id, id, entry_date);
    ALTER TABLE journal_entries DROP CONSTRAINT IF EXISTS journal_entries_line_reference_key;
    ALTER TABLE journal_lines DROP COLUMN IF EXISTS entry_number;
  `);
}
