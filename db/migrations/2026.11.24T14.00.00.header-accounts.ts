import type { MigrationContext } from './context';

// Header accounts: a group account of the global chart with accounts under it (NAS 21: 5100 "Cash in the
// settlement account" over 5110 "Settlement account") only sums its accounts; postings go to the accounts.
//
// The hierarchy is the global chart's: every account of a group names its group in `parent_code` (the code's
// two leading digits and 00, the numbering of NAS 21), and a global account that some account names is a
// header. A group without accounts under it would stay postable; NAS 21 has none, so its 74 groups are
// headers and its 247 accounts are where lines go. Company custom accounts have no place in this hierarchy
// (each is an account of its own), and subaccounts are analytics under an account: neither makes a header.
//
// The database refuses a journal line on a header for every role, as it refuses a line in a closed period.
// The rule is about inserts: a line written before it stays, and a reversal (new lines) obeys it like any
// posting.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE global_accounts ADD COLUMN parent_code text REFERENCES global_accounts (code) CHECK (parent_code <> code);
    UPDATE global_accounts a SET parent_code = g.code
      FROM global_accounts g
     WHERE g.code = left(a.code, 2) || '00' AND a.code <> g.code;
    CREATE INDEX global_accounts_parent_idx ON global_accounts (parent_code);

    CREATE FUNCTION ledger_reject_header_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM global_accounts WHERE parent_code = NEW.account_code) THEN
        RAISE EXCEPTION 'account % is a header account: post to one of its detail accounts', NEW.account_code
          USING ERRCODE = 'P0C12', HINT = 'header-account';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER journal_lines_detail_account BEFORE INSERT ON journal_lines
      FOR EACH ROW EXECUTE FUNCTION ledger_reject_header_accounts();
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TRIGGER IF EXISTS journal_lines_detail_account ON journal_lines;
    DROP FUNCTION IF EXISTS ledger_reject_header_accounts();
    ALTER TABLE global_accounts DROP COLUMN IF EXISTS parent_code;
  `);
}
