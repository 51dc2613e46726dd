import type { MigrationContext } from './context';

// The per-request authorisation read as one statement: the session is live, the membership ACTIVE, and
// whether its roles hold the permission. SECURITY DEFINER so it needs no transaction to set the tenant
// first (one round trip instead of four); every condition is scoped by the tenant of the verified token.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE FUNCTION app_load_principal(p_tenant uuid, p_session uuid, p_membership uuid, p_permission text)
      RETURNS TABLE (membership_id uuid, user_id uuid, identity_id uuid, slug text, roles text[], permitted boolean)
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS
      $$ SELECT m.id, m.user_id, u.identity_id, t.slug,
                COALESCE(array_agg(DISTINCT r.code ORDER BY r.code) FILTER (WHERE r.code IS NOT NULL), '{}'),
                COALESCE(bool_or(rp.permission IS NOT NULL), false)
           FROM sessions s
           JOIN memberships m ON m.tenant_id = s.tenant_id AND m.id = s.membership_id
           JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
           JOIN tenants t ON t.id = s.tenant_id
           LEFT JOIN membership_roles mr ON mr.tenant_id = m.tenant_id AND mr.membership_id = m.id
           LEFT JOIN roles r ON r.tenant_id = mr.tenant_id AND r.id = mr.role_id
           LEFT JOIN role_permissions rp ON rp.tenant_id = r.tenant_id AND rp.role_id = r.id AND rp.permission = p_permission
          WHERE s.tenant_id = p_tenant AND s.id = p_session AND s.membership_id = p_membership
            AND s.revoked_at IS NULL AND s.expires_at > now()
            AND m.status = 'ACTIVE' AND m.ended_at IS NULL
          GROUP BY m.id, m.user_id, u.identity_id, t.slug $$;
    REVOKE ALL ON FUNCTION app_load_principal(uuid, uuid, uuid, text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_load_principal(uuid, uuid, uuid, text) TO ${appRole};
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP FUNCTION IF EXISTS app_load_principal(uuid, uuid, uuid, text);`);
}
