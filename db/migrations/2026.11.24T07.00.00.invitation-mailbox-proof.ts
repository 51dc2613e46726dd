import type { MigrationContext } from './context';

// A new identity is created only by someone who proved the mailbox. An invitation's token answered to the
// inviter (MANUAL) proves nothing about the invitee's mailbox; the token the invitation mail carries does.
// The mailed token therefore gets its own column: `token_hash` stays the token handed out (MANUAL) or a
// hash of a token nobody knows (EMAIL), `mailed_token_hash` is the token that went to the mailbox. An
// acceptance says which one it came with, and the database refuses a new identity's password on an
// acceptance that did not prove the mailbox.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE membership_invitations ADD COLUMN mailed_token_hash bytea UNIQUE;
    ALTER TABLE invitation_acceptances ADD COLUMN mailbox_proven boolean NOT NULL DEFAULT false;
  `);
  // Invitations mailed before this migration carry their mailed token in token_hash: move it. The owner
  // runs migrations and is bound by row-level security too, so it is lifted for this one statement.
  await sql(`
    ALTER TABLE membership_invitations NO FORCE ROW LEVEL SECURITY;
    UPDATE membership_invitations
       SET mailed_token_hash = token_hash,
           token_hash = sha256(convert_to(gen_random_uuid()::text || id::text, 'UTF8'))
     WHERE delivery = 'EMAIL' AND mailed_at IS NOT NULL;
    ALTER TABLE membership_invitations FORCE ROW LEVEL SECURITY;
    ALTER TABLE invitation_acceptances
      ADD CONSTRAINT invitation_acceptances_new_identity_proven CHECK (password_hash IS NULL OR existing_identity_id IS NOT NULL OR mailbox_proven);
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE invitation_acceptances DROP CONSTRAINT IF EXISTS invitation_acceptances_new_identity_proven;
    ALTER TABLE invitation_acceptances DROP COLUMN IF EXISTS mailbox_proven;
    ALTER TABLE membership_invitations DROP COLUMN IF EXISTS mailed_token_hash;
  `);
}
