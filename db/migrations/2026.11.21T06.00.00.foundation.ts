import type { MigrationContext } from './context';

// Identities, workspaces, memberships, roles, sessions and the audit trail.
// Every tenant-scoped table: tenant_id leads its primary and unique keys, row-level security on,
// policy keyed on the transaction-scoped setting app.tenant_id (no setting: no rows).

const TENANT_TABLES = [
  'legal_entities',
  'users',
  'memberships',
  'roles',
  'role_permissions',
  'membership_roles',
  'sessions',
  'refresh_tokens',
  'audit_events',
];

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE FUNCTION app_current_tenant() RETURNS uuid LANGUAGE sql STABLE AS
      $$ SELECT NULLIF(current_setting('app.tenant_id', true), '')::uuid $$;

    CREATE FUNCTION reject_mutation() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only: % rejected', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$;

    -- Global identities: one per email, shared by every tenant the person belongs to.
    CREATE TABLE identities (
      id uuid PRIMARY KEY,
      email text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) <= 320),
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE registration_proofs (
      id uuid PRIMARY KEY,
      email text NOT NULL CHECK (email = lower(email)),
      purpose text NOT NULL DEFAULT 'REGISTRATION' CHECK (purpose IN ('REGISTRATION')),
      token_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      mailed_at timestamptz,
      superseded_at timestamptz,
      consumed_at timestamptz,
      consumed_by_attempt uuid,
      result jsonb
    );
    CREATE INDEX registration_proofs_email_idx ON registration_proofs (email, created_at DESC);

    -- What a register request asked for; the workflow reads it by id so no secret enters its history.
    CREATE TABLE registration_attempts (
      id uuid PRIMARY KEY,
      proof_id uuid NOT NULL REFERENCES registration_proofs(id),
      existing_identity_id uuid REFERENCES identities(id),
      password_hash text,
      company_name text,
      company_tax_id text,
      correlation_id uuid NOT NULL,
      ip_address text,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    -- Development mail adapter; never used when SendGrid is configured.
    CREATE TABLE mail_outbox (
      id bigserial PRIMARY KEY,
      to_address text NOT NULL,
      subject text NOT NULL,
      text text NOT NULL,
      sent_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX mail_outbox_to_idx ON mail_outbox (to_address, id DESC);

    CREATE TABLE tenants (
      id uuid PRIMARY KEY,
      slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE legal_entities (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      name text CHECK (length(name) BETWEEN 1 AND 200),
      tax_id text CHECK (tax_id ~ '^[0-9]{9}$'),
      onboarding_complete boolean NOT NULL DEFAULT false,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    );

    CREATE TABLE users (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      identity_id uuid NOT NULL REFERENCES identities(id),
      display_name text NOT NULL DEFAULT '' CHECK (length(display_name) <= 200),
      contact_email text CHECK (length(contact_email) <= 320),
      last_login_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, identity_id)
    );

    CREATE TABLE memberships (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      user_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('ACTIVE', 'SUSPENDED')),
      lock_version integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      ended_at timestamptz,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, user_id) REFERENCES users(tenant_id, id)
    );
    CREATE UNIQUE INDEX memberships_one_open_per_user ON memberships (tenant_id, user_id) WHERE ended_at IS NULL;

    CREATE TABLE roles (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      code text NOT NULL CHECK (code IN ('ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER')),
      name text NOT NULL,
      default_permissions boolean NOT NULL DEFAULT true,
      lock_version integer NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, code)
    );

    CREATE TABLE role_permissions (
      tenant_id uuid NOT NULL,
      role_id uuid NOT NULL,
      permission text NOT NULL CHECK (length(permission) BETWEEN 1 AND 100),
      PRIMARY KEY (tenant_id, role_id, permission),
      FOREIGN KEY (tenant_id, role_id) REFERENCES roles(tenant_id, id) ON DELETE CASCADE
    );

    CREATE TABLE membership_roles (
      tenant_id uuid NOT NULL,
      membership_id uuid NOT NULL,
      role_id uuid NOT NULL,
      PRIMARY KEY (tenant_id, membership_id, role_id),
      FOREIGN KEY (tenant_id, membership_id) REFERENCES memberships(tenant_id, id),
      FOREIGN KEY (tenant_id, role_id) REFERENCES roles(tenant_id, id)
    );

    -- A session is one refresh-token family.
    CREATE TABLE sessions (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      membership_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      last_activity_at timestamptz NOT NULL DEFAULT now(),
      ip_address text,
      user_agent text,
      revoked_at timestamptz,
      revoked_reason text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, membership_id) REFERENCES memberships(tenant_id, id)
    );
    CREATE INDEX sessions_membership_idx ON sessions (tenant_id, membership_id, last_activity_at DESC);

    CREATE TABLE refresh_tokens (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      session_id uuid NOT NULL,
      token_hash bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, token_hash),
      FOREIGN KEY (tenant_id, session_id) REFERENCES sessions(tenant_id, id)
    );
    CREATE INDEX refresh_tokens_hash_idx ON refresh_tokens (token_hash);

    CREATE TABLE audit_events (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      action text NOT NULL,
      category text NOT NULL,
      actor_membership_id uuid,
      actor_display_name text NOT NULL DEFAULT '',
      system_actor boolean NOT NULL,
      correlation_id uuid NOT NULL,
      subject_type text NOT NULL,
      subject_id uuid NOT NULL,
      ip_address text,
      details text NOT NULL DEFAULT '',
      delivery_state text NOT NULL DEFAULT 'RECORDED',
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX audit_events_time_idx ON audit_events (tenant_id, occurred_at DESC, id DESC);
    CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION reject_mutation();

    ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON tenants USING (id = app_current_tenant()) WITH CHECK (id = app_current_tenant());
  `);
  for (const table of TENANT_TABLES) {
    await sql(`
      ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
      CREATE POLICY tenant_isolation ON ${table}
        USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    `);
  }
  // Look-ups that must cross tenants before a tenant is known. Each returns ids only.
  await sql(`
    CREATE FUNCTION app_tenant_by_slug(p_slug text) RETURNS uuid
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS
      $$ SELECT id FROM tenants WHERE slug = p_slug $$;

    CREATE FUNCTION app_refresh_token_tenant(p_hash bytea) RETURNS uuid
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS
      $$ SELECT tenant_id FROM refresh_tokens WHERE token_hash = p_hash $$;

    CREATE FUNCTION app_identity_memberships(p_identity uuid)
      RETURNS TABLE (tenant_id uuid, slug text, membership_id uuid)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS
      $$ SELECT m.tenant_id, t.slug, m.id
           FROM users u
           JOIN memberships m ON m.tenant_id = u.tenant_id AND m.user_id = u.id
           JOIN tenants t ON t.id = u.tenant_id
          WHERE u.identity_id = p_identity AND m.status = 'ACTIVE' AND m.ended_at IS NULL
          ORDER BY t.slug $$;

    REVOKE ALL ON FUNCTION app_tenant_by_slug(text), app_refresh_token_tenant(bytea), app_identity_memberships(uuid) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_tenant_by_slug(text), app_refresh_token_tenant(bytea), app_identity_memberships(uuid) TO ${appRole};
    REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM ${appRole};
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP FUNCTION IF EXISTS app_identity_memberships(uuid);
    DROP FUNCTION IF EXISTS app_refresh_token_tenant(bytea);
    DROP FUNCTION IF EXISTS app_tenant_by_slug(text);
    DROP TABLE IF EXISTS audit_events, refresh_tokens, sessions, membership_roles, role_permissions, roles,
      memberships, users, legal_entities, tenants, mail_outbox, registration_attempts, registration_proofs, identities;
    DROP FUNCTION IF EXISTS reject_mutation();
    DROP FUNCTION IF EXISTS app_current_tenant();
  `);
}
