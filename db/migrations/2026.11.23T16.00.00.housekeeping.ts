import type { MigrationContext } from './context';

// Housekeeping (the `housekeeping` Temporal Schedule): rows that have served their purpose are deleted in
// bounded batches. The application role may not delete from most of these tables (secrets and attempt
// records must not be erased by a request), so one function owned by the definer role does it, with the
// retention of each kind written here, next to the tables it reads.
//
//   registration-proofs   proofs expired more than 24 hours ago, with their attempts
//   totp-enrollments      enrolments confirmed (the secret moved to the identity) or expired more than an hour ago
//   factor-attempts       second-factor attempts older than 24 hours (the window is five minutes)
//   email-challenge-codes encrypted codes older than 24 hours (a code lives five minutes)
//   request-limits        rate-limit counters whose window has ended
//   invitations           invitations never accepted, expired, revoked or superseded more than 30 days ago, with their acceptances
//   push-devices          devices not seen for 270 days
//   mail-events           provider events received more than 30 days ago (the provider retries for 3 days)
//   workflow-starts       workflow starts relayed more than 7 days ago

export async function up({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE INDEX registration_proofs_expires_idx ON registration_proofs (expires_at);
    CREATE INDEX registration_attempts_proof_idx ON registration_attempts (proof_id);
    CREATE INDEX totp_enrollments_finished_idx ON totp_enrollments (least(confirmed_at, expires_at));
    CREATE INDEX factor_attempts_time_idx ON factor_attempts (attempted_at);
    CREATE INDEX email_challenge_codes_created_idx ON email_challenge_codes (created_at);
    CREATE INDEX request_limits_expire_idx ON request_limits (expire);
    CREATE INDEX membership_invitations_expires_idx ON membership_invitations (expires_at) WHERE consumed_at IS NULL;
    CREATE INDEX invitation_acceptances_invitation_idx ON invitation_acceptances (tenant_id, invitation_id);
    CREATE INDEX push_devices_seen_idx ON push_devices (last_seen_at);
    CREATE INDEX workflow_starts_started_idx ON workflow_starts (started_at) WHERE started_at IS NOT NULL;

    -- Deletes at most p_limit rows of one kind (for a kind with children, p_limit parents and their
    -- children) and answers how many rows of that kind it deleted.
    CREATE FUNCTION app_prune(p_kind text, p_limit integer) RETURNS integer
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    DECLARE
      deleted integer;
    BEGIN
      IF p_limit IS NULL OR p_limit < 1 OR p_limit > 10000 THEN
        RAISE EXCEPTION 'batch size % out of range 1..10000', p_limit USING ERRCODE = 'invalid_parameter_value';
      END IF;
      CASE p_kind
      WHEN 'registration-proofs' THEN
        WITH doomed AS (SELECT id FROM registration_proofs WHERE expires_at < now() - interval '24 hours' LIMIT p_limit),
             -- A data-modifying WITH runs to completion whether or not it is read.
             attempts AS (DELETE FROM registration_attempts a USING doomed d WHERE a.proof_id = d.id RETURNING 1)
        DELETE FROM registration_proofs p USING doomed d WHERE p.id = d.id;
      WHEN 'totp-enrollments' THEN
        DELETE FROM totp_enrollments WHERE id IN (
          SELECT id FROM totp_enrollments WHERE least(confirmed_at, expires_at) < now() - interval '1 hour' LIMIT p_limit);
      WHEN 'factor-attempts' THEN
        DELETE FROM factor_attempts WHERE id IN (
          SELECT id FROM factor_attempts WHERE attempted_at < now() - interval '24 hours' LIMIT p_limit);
      WHEN 'email-challenge-codes' THEN
        DELETE FROM email_challenge_codes WHERE challenge_id IN (
          SELECT challenge_id FROM email_challenge_codes WHERE created_at < now() - interval '24 hours' LIMIT p_limit);
      WHEN 'request-limits' THEN
        DELETE FROM request_limits WHERE key IN (
          SELECT key FROM request_limits WHERE expire < (extract(epoch FROM now()) * 1000)::bigint LIMIT p_limit);
      WHEN 'invitations' THEN
        WITH doomed AS (
               SELECT tenant_id, id FROM membership_invitations
                -- least() skips NULLs: the moment the invitation ended (revoked, superseded or expired).
                WHERE consumed_at IS NULL AND least(revoked_at, superseded_at, expires_at) < now() - interval '30 days'
                LIMIT p_limit),
             acceptances AS (DELETE FROM invitation_acceptances a USING doomed d
                              WHERE a.tenant_id = d.tenant_id AND a.invitation_id = d.id RETURNING 1)
        DELETE FROM membership_invitations i USING doomed d
         WHERE i.tenant_id = d.tenant_id AND i.id = d.id;
      WHEN 'push-devices' THEN
        DELETE FROM push_devices WHERE id IN (
          SELECT id FROM push_devices WHERE last_seen_at < now() - interval '270 days' LIMIT p_limit);
      WHEN 'mail-events' THEN
        DELETE FROM mail_events WHERE (provider, event_id) IN (
          SELECT provider, event_id FROM mail_events WHERE received_at < now() - interval '30 days' LIMIT p_limit);
      WHEN 'workflow-starts' THEN
        DELETE FROM workflow_starts WHERE id IN (
          SELECT id FROM workflow_starts WHERE started_at < now() - interval '7 days' LIMIT p_limit);
      ELSE
        RAISE EXCEPTION 'unknown housekeeping kind %', p_kind USING ERRCODE = 'invalid_parameter_value';
      END CASE;
      GET DIAGNOSTICS deleted = ROW_COUNT;
      RETURN deleted;
    END $$;

    GRANT SELECT, DELETE ON registration_proofs, registration_attempts, totp_enrollments, factor_attempts, email_challenge_codes,
      request_limits, membership_invitations, invitation_acceptances, push_devices, mail_events, workflow_starts TO ${definerRole};
    ALTER FUNCTION app_prune(text, integer) OWNER TO ${definerRole};
    REVOKE ALL ON FUNCTION app_prune(text, integer) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_prune(text, integer) TO ${appRole};
  `);
}

export async function down({ sql, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    DROP FUNCTION IF EXISTS app_prune(text, integer);
    REVOKE SELECT, DELETE ON registration_proofs, registration_attempts, totp_enrollments, factor_attempts, email_challenge_codes,
      request_limits, membership_invitations, invitation_acceptances, push_devices, mail_events, workflow_starts FROM ${definerRole};
    DROP INDEX IF EXISTS registration_proofs_expires_idx, registration_attempts_proof_idx, totp_enrollments_finished_idx,
      factor_attempts_time_idx, email_challenge_codes_created_idx, request_limits_expire_idx, membership_invitations_expires_idx,
      invitation_acceptances_invitation_idx, push_devices_seen_idx, workflow_starts_started_idx;
  `);
}
