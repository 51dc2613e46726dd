import type { MigrationContext } from './context';

// The turnover sheet and the account statement take the counterparty as an analytic dimension (a sheet of
// 4010 by customer, a statement of 4010 for one customer). The close snapshots stay per account, subaccount
// and currency, so a counterparty's balances are summed from its lines through the day: this index serves
// those reads. Counterparty first, then the account in journal order (date, entry number, line), as
// journal_lines_account_idx: one counterparty's lines of an account are one range of it, its opening balance
// the part before the range's first day, and a statement page with the running sums before it an index-only
// scan in journal order; the turnover sheet by counterparty reads the company's part of it. The amounts are
// included for the index-only scans. Partial (counterparty_id IS NOT NULL): lines that name no counterparty
// (most of a ledger) are never read through it, and cost it nothing. Lines are append-only, so the index is
// written once per line.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE INDEX journal_lines_counterparty_idx
      ON journal_lines (tenant_id, legal_entity_id, counterparty_id, account_code, entry_date, entry_number, line_no)
      INCLUDE (entry_id, subaccount_id, debit, credit, currency, currency_amount)
      WHERE counterparty_id IS NOT NULL;
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX IF EXISTS journal_lines_counterparty_idx;
  `);
}
