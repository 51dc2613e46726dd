import type { MigrationContext } from './context';

// Second factors belong to the global identity (one person, every workspace they join), so these
// tables are not tenant-scoped. Secrets are stored encrypted (TOTP) or hashed (recovery codes).

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE identities
      ADD COLUMN email_factor_enabled boolean NOT NULL DEFAULT false,
      ADD COLUMN totp_secret_encrypted text,
      ADD COLUMN totp_enabled_at timestamptz,
      -- The last accepted 30-second step: it and every earlier step are spent (RFC 6238 §5.2).
      ADD COLUMN totp_last_step bigint,
      ADD CONSTRAINT identities_totp_consistent CHECK ((totp_secret_encrypted IS NULL) = (totp_enabled_at IS NULL));

    CREATE TABLE totp_enrollments (
      id uuid PRIMARY KEY,
      identity_id uuid NOT NULL REFERENCES identities(id),
      secret_encrypted text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      confirmed_at timestamptz
    );
    CREATE INDEX totp_enrollments_identity_idx ON totp_enrollments (identity_id);

    CREATE TABLE recovery_codes (
      id uuid PRIMARY KEY,
      identity_id uuid NOT NULL REFERENCES identities(id),
      code_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      used_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX recovery_codes_live_idx ON recovery_codes (identity_id) WHERE used_at IS NULL AND revoked_at IS NULL;

    -- One row per factor attempt; the five-per-five-minutes limit counts them (shared by every API process).
    CREATE TABLE factor_attempts (
      identity_id uuid NOT NULL REFERENCES identities(id),
      attempted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      kind text NOT NULL CHECK (kind IN ('EMAIL_CODE', 'TOTP', 'RECOVERY_CODE', 'CURRENT_PASSWORD'))
    );
    CREATE INDEX factor_attempts_window_idx ON factor_attempts (identity_id, attempted_at DESC);

    -- The emailed code of a challenge, encrypted, so a retried mail activity resends the same code.
    -- Deleted when the challenge workflow ends; the workflow itself only ever sees a keyed MAC of it.
    CREATE TABLE email_challenge_codes (
      challenge_id uuid PRIMARY KEY,
      identity_id uuid NOT NULL REFERENCES identities(id),
      code_encrypted text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    REVOKE UPDATE ON factor_attempts, email_challenge_codes FROM ${appRole};

    -- Ends every live session of an identity in every workspace (password change), except one.
    CREATE FUNCTION app_revoke_identity_sessions(p_identity uuid, p_keep uuid, p_reason text)
      RETURNS TABLE (tenant_id uuid, session_id uuid, membership_id uuid)
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS
      $$ UPDATE sessions s SET revoked_at = now(), revoked_reason = p_reason
           FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
          WHERE s.tenant_id = m.tenant_id AND s.membership_id = m.id AND u.identity_id = p_identity
            AND s.revoked_at IS NULL AND s.id IS DISTINCT FROM p_keep
         RETURNING s.tenant_id, s.id, s.membership_id $$;
    REVOKE ALL ON FUNCTION app_revoke_identity_sessions(uuid, uuid, text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_revoke_identity_sessions(uuid, uuid, text) TO ${appRole};
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP FUNCTION IF EXISTS app_revoke_identity_sessions(uuid, uuid, text);
    DROP TABLE IF EXISTS email_challenge_codes, factor_attempts, recovery_codes, totp_enrollments;
    ALTER TABLE identities
      DROP CONSTRAINT IF EXISTS identities_totp_consistent,
      DROP COLUMN IF EXISTS totp_last_step,
      DROP COLUMN IF EXISTS totp_enabled_at,
      DROP COLUMN IF EXISTS totp_secret_encrypted,
      DROP COLUMN IF EXISTS email_factor_enabled;
  `);
}
