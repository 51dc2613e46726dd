import type { MigrationContext } from './context';

// A matching rule may confirm its own proposals (autoConfirm): the import then posts the payment or the line's
// entry itself, one line to a commit, on behalf of the person who imported. The import marks when its lines
// have been proposed, so a retried step neither proposes twice nor confirms what it has not proposed.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE bank_matching_rules ADD COLUMN auto_confirm boolean NOT NULL DEFAULT false;
    ALTER TABLE bank_statement_imports ADD COLUMN lines_proposed boolean NOT NULL DEFAULT false;
    ALTER TABLE bank_statement_imports ADD CONSTRAINT bank_statement_imports_proposed_after_stored CHECK (NOT lines_proposed OR lines_stored);
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE bank_statement_imports DROP CONSTRAINT IF EXISTS bank_statement_imports_proposed_after_stored;
    ALTER TABLE bank_statement_imports DROP COLUMN IF EXISTS lines_proposed;
    ALTER TABLE bank_matching_rules DROP COLUMN IF EXISTS auto_confirm;
  `);
}
