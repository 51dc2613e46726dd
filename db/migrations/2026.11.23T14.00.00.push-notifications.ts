import type { MigrationContext } from './context';

// Push notifications. A device token belongs to one membership: registering it again, from
// any workspace, moves it to the caller and keeps its id, which crosses tenants and so is the definer's
// function. A message snapshots its recipient's devices as deliveries (one per device, PENDING until the
// fan-out workflow push-<tenantId>-<requestId> settles it). `push_outbox` is the development adapter's
// record of what it "sent" (GET /dev/push), one row per message and device at most.

const TENANT_TABLES = ['push_devices', 'push_messages', 'push_deliveries'];

export async function up({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE push_devices (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      membership_id uuid NOT NULL,
      token text NOT NULL CHECK (length(token) BETWEEN 20 AND 4096),
      token_hash bytea NOT NULL UNIQUE,
      platform text NOT NULL CHECK (platform IN ('ANDROID', 'IOS', 'WEB', 'UNKNOWN')),
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (tenant_id, membership_id) REFERENCES memberships(tenant_id, id)
    );
    CREATE INDEX push_devices_membership_idx ON push_devices (tenant_id, membership_id);

    CREATE TABLE push_messages (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      request_id uuid NOT NULL,
      -- SHA-256 of the request's content: the same requestId with other content is refused.
      fingerprint bytea NOT NULL,
      sender_membership_id uuid NOT NULL,
      recipient_membership_id uuid NOT NULL,
      title text NOT NULL CHECK (length(title) <= 120),
      body text NOT NULL CHECK (length(body) <= 500),
      click_path text CHECK (length(click_path) <= 200),
      status text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'SENDING', 'DELIVERED', 'PARTIAL', 'FAILED')),
      device_count integer NOT NULL CHECK (device_count >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, request_id),
      FOREIGN KEY (tenant_id, recipient_membership_id) REFERENCES memberships(tenant_id, id)
    );

    CREATE TABLE push_deliveries (
      tenant_id uuid NOT NULL,
      message_id uuid NOT NULL,
      device_id uuid NOT NULL,
      state text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SENT', 'FAILED', 'INVALID_TOKEN')),
      provider_message_id text,
      error text CHECK (length(error) <= 500),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, message_id, device_id),
      FOREIGN KEY (tenant_id, message_id) REFERENCES push_messages(tenant_id, id)
    );

    CREATE TABLE push_outbox (
      id bigserial PRIMARY KEY,
      token_hash bytea NOT NULL,
      delivery_key text NOT NULL UNIQUE,
      message_id uuid NOT NULL,
      title text NOT NULL,
      body text NOT NULL,
      click_path text,
      sent_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX push_outbox_token_idx ON push_outbox (token_hash, id DESC);

    REVOKE TRUNCATE ON push_devices, push_messages, push_deliveries, push_outbox FROM ${appRole};
    REVOKE DELETE ON push_messages, push_deliveries FROM ${appRole};

    -- Registers a token for a membership; a token already known (in any workspace) moves to it and keeps its id.
    CREATE FUNCTION app_claim_push_device(p_tenant uuid, p_membership uuid, p_token text, p_token_hash bytea, p_platform text)
      RETURNS uuid LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
      INSERT INTO push_devices AS d (id, tenant_id, membership_id, token, token_hash, platform)
      VALUES (gen_random_uuid(), p_tenant, p_membership, p_token, p_token_hash, p_platform)
      ON CONFLICT (token_hash) DO UPDATE
        SET tenant_id = EXCLUDED.tenant_id, membership_id = EXCLUDED.membership_id, platform = EXCLUDED.platform, last_seen_at = now()
      RETURNING d.id
    $$;
    GRANT SELECT, INSERT, UPDATE ON push_devices TO ${definerRole};
    ALTER FUNCTION app_claim_push_device(uuid, uuid, text, bytea, text) OWNER TO ${definerRole};
    REVOKE ALL ON FUNCTION app_claim_push_device(uuid, uuid, text, bytea, text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_claim_push_device(uuid, uuid, text, bytea, text) TO ${appRole};
  `);
  for (const table of TENANT_TABLES) {
    await sql(`
      ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
      ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
      CREATE POLICY tenant_isolation ON ${table}
        USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    `);
  }
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP FUNCTION IF EXISTS app_claim_push_device(uuid, uuid, text, bytea, text);
    DROP TABLE IF EXISTS push_outbox, push_deliveries, push_messages, push_devices;
  `);
}
