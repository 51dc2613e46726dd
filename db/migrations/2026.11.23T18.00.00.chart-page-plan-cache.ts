import type { MigrationContext } from './context';

// One page of a company's chart of accounts (global accounts with the company's overrides, plus its custom
// accounts, with subaccount counts and the count of all matches) as a PL/pgSQL function, so that its plan
// is kept for the session instead of made on every request: planning the two-table query cost more than
// running it. SECURITY INVOKER: it runs as the caller, under the caller's row-level security, and returns
// exactly what the same query sent as text would.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE FUNCTION app_company_chart_page(p_tenant uuid, p_legal_entity uuid, p_q text, p_type text, p_limit integer, p_offset integer)
      RETURNS TABLE (code text, name text, type text, enabled boolean, custom boolean, version bigint, subaccount_count bigint, total bigint)
      LANGUAGE plpgsql STABLE SECURITY INVOKER SET search_path = public, pg_temp AS
      $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH chart AS (
            SELECT g.code, COALESCE(o.name, g.name) AS name, g.type, COALESCE(o.enabled, true) AS enabled,
                   false AS custom, COALESCE(o.version, 0::bigint) AS version
              FROM global_accounts g
              LEFT JOIN company_accounts o
                ON o.tenant_id = p_tenant AND o.legal_entity_id = p_legal_entity AND o.code = g.code AND NOT o.custom
            UNION ALL
            SELECT c.code, c.name, c.type, c.enabled, true, c.version
              FROM company_accounts c
             WHERE c.tenant_id = p_tenant AND c.legal_entity_id = p_legal_entity AND c.custom
          )
          SELECT chart.code, chart.name, chart.type, chart.enabled, chart.custom, chart.version,
                 (SELECT count(*) FROM company_subaccounts s
                   WHERE s.tenant_id = p_tenant AND s.legal_entity_id = p_legal_entity AND s.parent_code = chart.code),
                 count(*) OVER ()
            FROM chart
           WHERE (p_q = '' OR strpos(chart.code, p_q) > 0 OR strpos(lower(chart.name), lower(p_q)) > 0)
             AND (p_type IS NULL OR chart.type = p_type)
           ORDER BY chart.code COLLATE "C" LIMIT p_limit OFFSET p_offset;
      END
      $$;
    REVOKE ALL ON FUNCTION app_company_chart_page(uuid, uuid, text, text, integer, integer) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_company_chart_page(uuid, uuid, text, text, integer, integer) TO ${appRole};
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP FUNCTION IF EXISTS app_company_chart_page(uuid, uuid, text, text, integer, integer);`);
}
