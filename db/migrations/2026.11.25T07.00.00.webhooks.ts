import type { MigrationContext } from './context';

// Outbound events as signed webhooks. An endpoint (at most 20 per workspace, checked under the workspace's
// lock) subscribes to event types; its secret is sealed like the second-factor secrets (the previous one
// keeps signing for 24 hours after a rotation). An event is written in the same commit as the change that
// causes it, with one delivery per subscribed endpoint and the start of its workflow
// webhook-<endpointId>-<eventId> in workflow_starts (the start outbox): a rolled-back change sends nothing,
// a committed one is never lost. Every attempt of a delivery is kept (status code, duration, error class,
// a short excerpt of the answer).

const TENANT_TABLES = ['webhook_endpoints', 'webhook_events', 'webhook_deliveries', 'webhook_attempts'];

export async function up({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE webhook_endpoints (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2000),
      description text CHECK (length(description) <= 500),
      event_types text[] NOT NULL CHECK (cardinality(event_types) BETWEEN 1 AND 20),
      enabled boolean NOT NULL DEFAULT true,
      -- Why the service disabled it (after 5 days of failures); null when enabled or disabled by a person.
      disabled_reason text CHECK (length(disabled_reason) <= 500),
      secret_sealed text NOT NULL,
      previous_secret_sealed text,
      previous_secret_until timestamptz,
      -- The first failed attempt of the current run of failures; a delivered attempt clears it.
      failing_since timestamptz,
      version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz,
      PRIMARY KEY (tenant_id, id),
      CHECK ((previous_secret_sealed IS NULL) = (previous_secret_until IS NULL))
    );
    CREATE INDEX webhook_endpoints_live_idx ON webhook_endpoints (tenant_id) WHERE deleted_at IS NULL AND enabled;

    CREATE TABLE webhook_events (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      type text NOT NULL CHECK (type IN ('journal-entry.posted', 'journal-entry.reversed', 'period-close.completed',
        'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated', 'rates.refreshed', 'webhook.test')),
      payload jsonb NOT NULL,
      occurred_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    );

    CREATE TABLE webhook_deliveries (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      endpoint_id uuid NOT NULL,
      event_id uuid NOT NULL,
      state text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'DELIVERED', 'FAILED')),
      attempt_count integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
      last_status_code integer,
      last_error text CHECK (length(last_error) <= 500),
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      settled_at timestamptz,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, endpoint_id, event_id),
      FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints(tenant_id, id),
      FOREIGN KEY (tenant_id, event_id) REFERENCES webhook_events(tenant_id, id)
    );
    CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (tenant_id, endpoint_id, created_at DESC);

    CREATE TABLE webhook_attempts (
      tenant_id uuid NOT NULL,
      delivery_id uuid NOT NULL,
      attempt integer NOT NULL CHECK (attempt >= 1),
      started_at timestamptz NOT NULL DEFAULT now(),
      duration_ms integer NOT NULL CHECK (duration_ms >= 0),
      status_code integer,
      error_class text CHECK (length(error_class) <= 50),
      response_excerpt text CHECK (length(response_excerpt) <= 256),
      PRIMARY KEY (tenant_id, delivery_id, attempt),
      FOREIGN KEY (tenant_id, delivery_id) REFERENCES webhook_deliveries(tenant_id, id)
    );

    -- Events, deliveries and attempts are a record: the application adds and settles, never erases.
    REVOKE TRUNCATE ON webhook_endpoints, webhook_events, webhook_deliveries, webhook_attempts FROM ${appRole};
    REVOKE DELETE ON webhook_endpoints, webhook_events, webhook_deliveries, webhook_attempts FROM ${appRole};
    REVOKE UPDATE ON webhook_events, webhook_attempts FROM ${appRole};
  `);
  for (const table of TENANT_TABLES) {
    await sql(`
      ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
      ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
      CREATE POLICY tenant_isolation ON ${table}
        USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    `);
  }
  // Rates are global, so a rates.refreshed event goes to every workspace with a subscriber: this look-up
  // crosses workspaces and answers ids only; each workspace's event is then written with that workspace as
  // the transaction's tenant, through the row-level policies like any other write.
  await sql(`
    GRANT SELECT ON webhook_endpoints TO ${definerRole};
    CREATE FUNCTION app_webhook_subscriber_tenants(p_type text) RETURNS SETOF uuid
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
      SELECT DISTINCT tenant_id FROM webhook_endpoints WHERE deleted_at IS NULL AND enabled AND p_type = ANY(event_types)
    $$;
    ALTER FUNCTION app_webhook_subscriber_tenants(text) OWNER TO ${definerRole};
    REVOKE ALL ON FUNCTION app_webhook_subscriber_tenants(text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_webhook_subscriber_tenants(text) TO ${appRole};
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP FUNCTION IF EXISTS app_webhook_subscriber_tenants(text);`);
  await sql(`DROP TABLE IF EXISTS webhook_attempts, webhook_deliveries, webhook_events, webhook_endpoints;`);
}
