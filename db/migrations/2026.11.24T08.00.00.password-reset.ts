import type { MigrationContext } from './context';

// Password reset by an emailed link. Its one-time token is an emailed proof like the registration link:
// stored only as a hash, short-lived, superseded by a newer one, consumed once; it lives in the same table
// with its own purpose, so the lookups, locks and housekeeping of emailed proofs serve both. A proof of one
// purpose is never accepted for the other (every lookup names its purpose). The mail it sends is recorded
// with its own purpose.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE registration_proofs DROP CONSTRAINT registration_proofs_purpose_check;
    ALTER TABLE registration_proofs ADD CONSTRAINT registration_proofs_purpose_check CHECK (purpose IN ('REGISTRATION', 'PASSWORD_RESET'));
    ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_purpose_check;
    ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_purpose_check CHECK (purpose IN ('REGISTRATION', 'INVITATION', 'EMAIL_CODE', 'PASSWORD_RESET'));
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_purpose_check;
    ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_purpose_check CHECK (purpose IN ('REGISTRATION', 'INVITATION', 'EMAIL_CODE'));
    ALTER TABLE registration_proofs DROP CONSTRAINT registration_proofs_purpose_check;
    ALTER TABLE registration_proofs ADD CONSTRAINT registration_proofs_purpose_check CHECK (purpose IN ('REGISTRATION'));
  `);
}
