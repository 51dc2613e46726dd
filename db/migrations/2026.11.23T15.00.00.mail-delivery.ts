import type { MigrationContext } from './context';

// Delivery state of every mail the service sends. `mail_messages` holds one row per
// logical mail (a registration proof, an invitation, a second-factor code), with the provider's message id
// once it accepted the mail and the latest state its event webhook reported. `mail_events` keeps each
// provider event once (idempotency per event id); an event that arrives before its mail's message id is
// recorded waits there unmatched and is applied when the id is known.
//
// A mail raised by an audited action (an emailed invitation) is linked to that audit event (in the tenant
// table `mail_audit_links`): a trigger owned by the definer role copies the mail's state into the event's
// `delivery_state`, the one column of `audit_events` that may ever change. The application role itself
// still cannot update audit events.

const STATES = ['SENDING', 'SENT', 'PROCESSED', 'DEFERRED', 'DELIVERED', 'BOUNCED', 'DROPPED', 'SPAM_REPORTED', 'FAILED'];

export async function up({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  const states = STATES.map((s) => `'${s}'`).join(', ');
  await sql(`
    ALTER TABLE mail_outbox ADD COLUMN message_id text;
    UPDATE mail_outbox SET message_id = 'outbox-' || id;
    ALTER TABLE mail_outbox ALTER COLUMN message_id SET NOT NULL;

    CREATE TABLE mail_messages (
      id uuid PRIMARY KEY,
      -- The logical mail (e.g. registration:<proofId>): a retried send reuses its row.
      mail_key text NOT NULL UNIQUE CHECK (length(mail_key) <= 200),
      purpose text NOT NULL CHECK (purpose IN ('REGISTRATION', 'INVITATION', 'EMAIL_CODE')),
      to_address text NOT NULL CHECK (to_address = lower(to_address) AND length(to_address) <= 320),
      provider text NOT NULL CHECK (provider IN ('sendgrid', 'outbox')),
      provider_message_id text UNIQUE CHECK (length(provider_message_id) <= 200),
      state text NOT NULL DEFAULT 'SENDING' CHECK (state IN (${states})),
      state_at timestamptz NOT NULL DEFAULT now(),
      -- The provider's reason for a bounce, drop, deferral or refusal (never a secret; bounded).
      detail text CHECK (length(detail) <= 500),
      created_at timestamptz NOT NULL DEFAULT now()
    );

    -- Which audit event a mail belongs to: tenant data, so a tenant table under row-level security.
    CREATE TABLE mail_audit_links (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      mail_message_id uuid NOT NULL REFERENCES mail_messages(id) ON DELETE CASCADE,
      audit_event_id uuid NOT NULL,
      PRIMARY KEY (mail_message_id),
      FOREIGN KEY (tenant_id, audit_event_id) REFERENCES audit_events(tenant_id, id)
    );
    ALTER TABLE mail_audit_links ENABLE ROW LEVEL SECURITY;
    ALTER TABLE mail_audit_links FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON mail_audit_links
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    REVOKE UPDATE, TRUNCATE ON mail_audit_links FROM ${appRole};
    CREATE INDEX mail_messages_to_idx ON mail_messages (to_address, created_at DESC);
    CREATE INDEX mail_messages_created_idx ON mail_messages (created_at);

    CREATE TABLE mail_events (
      provider text NOT NULL,
      event_id text NOT NULL CHECK (length(event_id) <= 200),
      provider_message_id text CHECK (length(provider_message_id) <= 300),
      mail_message_id uuid REFERENCES mail_messages(id) ON DELETE SET NULL,
      event text NOT NULL CHECK (length(event) <= 50),
      state text NOT NULL CHECK (state IN (${states})),
      detail text CHECK (length(detail) <= 500),
      occurred_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider, event_id)
    );
    CREATE INDEX mail_events_unmatched_idx ON mail_events (received_at) WHERE mail_message_id IS NULL;
    CREATE INDEX mail_events_received_idx ON mail_events (received_at);

    -- Order of states: a later event never moves a mail back (events arrive out of order); equal ranks
    -- are decided by the event's time.
    CREATE FUNCTION mail_state_rank(p_state text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE p_state
        WHEN 'SENDING' THEN 0 WHEN 'SENT' THEN 1 WHEN 'PROCESSED' THEN 2 WHEN 'DEFERRED' THEN 3
        WHEN 'DELIVERED' THEN 4 WHEN 'BOUNCED' THEN 4 WHEN 'DROPPED' THEN 4 WHEN 'FAILED' THEN 4
        WHEN 'SPAM_REPORTED' THEN 5 END
    $$;

    REVOKE DELETE, TRUNCATE ON mail_messages, mail_events FROM ${appRole};
    REVOKE UPDATE ON mail_events FROM ${appRole};
    GRANT UPDATE (mail_message_id) ON mail_events TO ${appRole};

    -- Audit events stay append-only except for delivery_state.
    DROP TRIGGER audit_events_append_only ON audit_events;
    CREATE TRIGGER audit_events_append_only BEFORE DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION reject_mutation();
    CREATE FUNCTION audit_events_delivery_state_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (to_jsonb(NEW) - 'delivery_state') IS DISTINCT FROM (to_jsonb(OLD) - 'delivery_state') THEN
        RAISE EXCEPTION 'audit_events is append-only: only delivery_state may change' USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER audit_events_delivery_state_only BEFORE UPDATE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_delivery_state_only();

    CREATE FUNCTION mail_messages_to_audit() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
      IF NEW.state <> 'SENDING' THEN
        UPDATE audit_events a SET delivery_state = NEW.state
          FROM mail_audit_links l
         WHERE l.mail_message_id = NEW.id AND a.tenant_id = l.tenant_id AND a.id = l.audit_event_id
           AND a.delivery_state IS DISTINCT FROM NEW.state;
      END IF;
      RETURN NULL;
    END $$;
    GRANT SELECT (tenant_id, id, delivery_state), UPDATE (delivery_state) ON audit_events TO ${definerRole};
    GRANT SELECT ON mail_audit_links TO ${definerRole};
    ALTER FUNCTION mail_messages_to_audit() OWNER TO ${definerRole};
    REVOKE ALL ON FUNCTION mail_messages_to_audit() FROM PUBLIC;
    CREATE TRIGGER mail_messages_audit AFTER UPDATE OF state ON mail_messages
      FOR EACH ROW EXECUTE FUNCTION mail_messages_to_audit();
  `);
}

export async function down({ sql, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    DROP TABLE IF EXISTS mail_events, mail_audit_links, mail_messages;
    DROP FUNCTION IF EXISTS mail_messages_to_audit();
    DROP FUNCTION IF EXISTS mail_state_rank(text);
    REVOKE ALL ON audit_events FROM ${definerRole};
    DROP TRIGGER IF EXISTS audit_events_delivery_state_only ON audit_events;
    DROP FUNCTION IF EXISTS audit_events_delivery_state_only();
    DROP TRIGGER IF EXISTS audit_events_append_only ON audit_events;
    CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION reject_mutation();
    ALTER TABLE mail_outbox DROP COLUMN IF EXISTS message_id;
  `);
}
