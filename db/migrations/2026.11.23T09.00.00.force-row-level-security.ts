import type { MigrationContext } from './context';

// Row-level security binds the tables' owner too (FORCE), so a migration, a maintenance session or a
// mis-configured service connecting as the owner sees no tenant's rows without setting the tenant. The
// cross-tenant look-ups stay SECURITY DEFINER functions, now owned by the definer role (BYPASSRLS, no
// login), which is granted only what they read and write.

const DEFINER_FUNCTIONS = [
  'app_tenant_by_slug(text)',
  'app_refresh_token_tenant(bytea)',
  'app_identity_memberships(uuid)',
  'app_revoke_identity_sessions(uuid, uuid, text)',
  'app_load_principal(uuid, uuid, uuid, text)',
];

export async function up({ sql, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    GRANT SELECT ON tenants, users, memberships, sessions, refresh_tokens, roles, membership_roles, role_permissions TO ${definerRole};
    GRANT UPDATE (revoked_at, revoked_reason) ON sessions TO ${definerRole};
    ${DEFINER_FUNCTIONS.map((f) => `ALTER FUNCTION ${f} OWNER TO ${definerRole};`).join('\n    ')}
    DO $$
    DECLARE t regclass;
    BEGIN
      FOR t IN SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relrowsecurity
      LOOP
        EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', t);
      END LOOP;
    END $$;
  `);
}

export async function down({ sql, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    DO $$
    DECLARE t regclass;
    BEGIN
      FOR t IN SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relforcerowsecurity
      LOOP
        EXECUTE format('ALTER TABLE %s NO FORCE ROW LEVEL SECURITY', t);
      END LOOP;
    END $$;
    ${DEFINER_FUNCTIONS.map((f) => `ALTER FUNCTION ${f} OWNER TO CURRENT_USER;`).join('\n    ')}
    REVOKE ALL ON tenants, users, memberships, sessions, refresh_tokens, roles, membership_roles, role_permissions FROM ${definerRole};
  `);
}
