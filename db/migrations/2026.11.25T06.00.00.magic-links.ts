import type { MigrationContext } from './context';

// Magic links: the table of emailed one-time links (registration and password reset, told apart by
// `purpose`) is named for what it holds, `magic_links` (it was `registration_proofs`), with its constraints
// and indexes. Housekeeping's function app_prune is recreated to delete from it under the kind
// 'magic-links' (it was 'registration-proofs'); its owner and grants are those of the housekeeping
// migration. The register operation's own record, `registration_attempts`, keeps its name and its
// column `proof_id`.

/** app_prune as the housekeeping migration wrote it, with the kind and table of the emailed links as given. */
function appPrune(linkKind: string, linkTable: string): string {
  return `
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
      WHEN '${linkKind}' THEN
        WITH doomed AS (SELECT id FROM ${linkTable} WHERE expires_at < now() - interval '24 hours' LIMIT p_limit),
             -- A data-modifying WITH runs to completion whether or not it is read.
             attempts AS (DELETE FROM registration_attempts a USING doomed d WHERE a.proof_id = d.id RETURNING 1)
        DELETE FROM ${linkTable} p USING doomed d WHERE p.id = d.id;
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
    END $$;`;
}

/** The function's owner and grants, as the housekeeping migration set them. */
function appPruneGrants(appRole: string, definerRole: string): string {
  return `
    ALTER FUNCTION app_prune(text, integer) OWNER TO ${definerRole};
    REVOKE ALL ON FUNCTION app_prune(text, integer) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_prune(text, integer) TO ${appRole};`;
}

export async function up({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE registration_proofs RENAME TO magic_links;
    ALTER TABLE magic_links RENAME CONSTRAINT registration_proofs_pkey TO magic_links_pkey;
    ALTER TABLE magic_links RENAME CONSTRAINT registration_proofs_token_hash_key TO magic_links_token_hash_key;
    ALTER TABLE magic_links RENAME CONSTRAINT registration_proofs_email_check TO magic_links_email_check;
    ALTER TABLE magic_links RENAME CONSTRAINT registration_proofs_purpose_check TO magic_links_purpose_check;
    ALTER INDEX registration_proofs_email_idx RENAME TO magic_links_email_idx;
    ALTER INDEX registration_proofs_expires_idx RENAME TO magic_links_expires_idx;

    DROP FUNCTION app_prune(text, integer);
    ${appPrune('magic-links', 'magic_links')}
    ${appPruneGrants(appRole, definerRole)}
  `);
}

export async function down({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    DROP FUNCTION app_prune(text, integer);
    ALTER INDEX magic_links_expires_idx RENAME TO registration_proofs_expires_idx;
    ALTER INDEX magic_links_email_idx RENAME TO registration_proofs_email_idx;
    ALTER TABLE magic_links RENAME CONSTRAINT magic_links_purpose_check TO registration_proofs_purpose_check;
    ALTER TABLE magic_links RENAME CONSTRAINT magic_links_email_check TO registration_proofs_email_check;
    ALTER TABLE magic_links RENAME CONSTRAINT magic_links_token_hash_key TO registration_proofs_token_hash_key;
    ALTER TABLE magic_links RENAME CONSTRAINT magic_links_pkey TO registration_proofs_pkey;
    ALTER TABLE magic_links RENAME TO registration_proofs;

    ${appPrune('registration-proofs', 'registration_proofs')}
    ${appPruneGrants(appRole, definerRole)}
  `);
}
