import type { MigrationContext } from './context';

// Brings every workspace's roles up to the OpenAPI document's default permissions, run by the database
// setup after the migrations (the document is only known to the code): a role still on its defaults
// gains the permissions of new operations and loses those of removed ones; a role whose set was edited
// keeps it; ADMIN always holds every permission. SECURITY DEFINER (owned by the definer role) because it
// spans workspaces and every table forces row-level security on its owner too.

export async function up({ sql, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    GRANT INSERT, DELETE ON role_permissions TO ${definerRole};

    -- p_defaults: {"<permission>": ["ADMIN", "ACCOUNTANT", ...], ...}; p_tenant: one workspace, or null for all.
    CREATE FUNCTION app_sync_role_permissions(p_defaults jsonb, p_tenant uuid DEFAULT NULL) RETURNS integer
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    DECLARE added integer; removed integer;
    BEGIN
      INSERT INTO role_permissions (tenant_id, role_id, permission)
        SELECT r.tenant_id, r.id, d.key
          FROM roles r CROSS JOIN jsonb_each(p_defaults) d
         WHERE (r.default_permissions OR r.code = 'ADMIN') AND (r.code = 'ADMIN' OR d.value ? r.code)
           AND (p_tenant IS NULL OR r.tenant_id = p_tenant)
        ON CONFLICT DO NOTHING;
      GET DIAGNOSTICS added = ROW_COUNT;
      DELETE FROM role_permissions rp
       USING roles r
       WHERE r.tenant_id = rp.tenant_id AND r.id = rp.role_id AND (r.default_permissions OR r.code = 'ADMIN')
         AND (p_tenant IS NULL OR r.tenant_id = p_tenant)
         AND NOT EXISTS (SELECT 1 FROM jsonb_each(p_defaults) d WHERE d.key = rp.permission AND (r.code = 'ADMIN' OR d.value ? r.code));
      GET DIAGNOSTICS removed = ROW_COUNT;
      RETURN added + removed;
    END $$;
    ALTER FUNCTION app_sync_role_permissions(jsonb, uuid) OWNER TO ${definerRole};
    -- Only the setup runs it (as the owner, a member of the definer role); the application role cannot.
    REVOKE ALL ON FUNCTION app_sync_role_permissions(jsonb, uuid) FROM PUBLIC;
  `);
}

export async function down({ sql, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    DROP FUNCTION IF EXISTS app_sync_role_permissions(jsonb, uuid);
    REVOKE INSERT, DELETE ON role_permissions FROM ${definerRole};
  `);
}
