import type { MigrationContext } from './context';

// The aging (getAgingReport) reads a company's open documents as they stood on a date, plus the settlement and
// advance accounts' lines that no document posted. Two of its reads were bounded by the company's whole history:
//
// - The allocations. As of a date, what was allocated to an invoice (a payment) is its running `allocated` sum
//   (its live allocations, held equal to them at commit by the trigger of 2026.11.26T15.00.00.payments), less
//   what was allocated after the date, plus what was released after it: only the allocations made or released
//   after the date are read, none for an aging of today. Two indexes find them by date.
// - The manual lines. Reached from the lines of 4010 (6310), they were every line the documents posted there,
//   each read from the heap for its counterparty, then each one's entry, to drop it. The entries no document
//   posted are a partial index by company and date with their ids (the aging's hash of them is read from the
//   index alone, or, when they are few, their lines are reached from them); the account index carries the
//   lines' counterparty, so the accounts' lines are read from the index alone too. Which way round is the
//   planner's: a company that invoices has few manual entries, one that posts by hand many.
//
// The account index is rebuilt with the counterparty among its included columns (the account statement reads
// it as before, its key unchanged).

const ACCOUNT_INDEX_KEY = 'journal_lines (tenant_id, legal_entity_id, account_code, entry_date, entry_number, line_no)';

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE INDEX payment_allocations_date_idx ON payment_allocations (tenant_id, legal_entity_id, allocation_date);
    CREATE INDEX payment_allocations_released_idx ON payment_allocations (tenant_id, legal_entity_id, released_date) WHERE released_date IS NOT NULL;
    CREATE INDEX journal_entries_manual_idx ON journal_entries (tenant_id, legal_entity_id, entry_date) INCLUDE (id) WHERE source_type IS NULL;
    DROP INDEX journal_lines_account_idx;
    CREATE INDEX journal_lines_account_idx ON ${ACCOUNT_INDEX_KEY}
      INCLUDE (entry_id, subaccount_id, counterparty_id, debit, credit, currency, currency_amount);
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX IF EXISTS journal_lines_account_idx;
    CREATE INDEX journal_lines_account_idx ON ${ACCOUNT_INDEX_KEY} INCLUDE (entry_id, subaccount_id, debit, credit, currency, currency_amount);
    DROP INDEX IF EXISTS journal_entries_manual_idx;
    DROP INDEX IF EXISTS payment_allocations_released_idx;
    DROP INDEX IF EXISTS payment_allocations_date_idx;
  `);
}
