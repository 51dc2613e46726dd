import type { MigrationContext } from './context';
import { up as createPreviousChartPage } from './2026.11.23T18.00.00.chart-page-plan-cache';

// The chart says which accounts are headers (a global group with accounts under it, 5100 over 5110): the
// page function answers `header` and filters on it, and a subaccount cannot be created under a header, for
// every role, as a journal line cannot name one. The rule is about inserts: a subaccount made before it stays.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    DROP FUNCTION app_company_chart_page(uuid, uuid, text, text, integer, integer);
    CREATE FUNCTION app_company_chart_page(p_tenant uuid, p_legal_entity uuid, p_q text, p_type text, p_header boolean, p_limit integer, p_offset integer)
      RETURNS TABLE (code text, name text, type text, enabled boolean, custom boolean, header boolean, version bigint, subaccount_count bigint, total bigint)
      LANGUAGE plpgsql STABLE SECURITY INVOKER SET search_path = public, pg_temp AS
      $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH chart AS (
            SELECT g.code, COALESCE(o.name, g.name) AS name, g.type, COALESCE(o.enabled, true) AS enabled,
                   false AS custom, EXISTS (SELECT 1 FROM global_accounts d WHERE d.parent_code = g.code) AS header,
                   COALESCE(o.version, 0::bigint) AS version
              FROM global_accounts g
              LEFT JOIN company_accounts o
                ON o.tenant_id = p_tenant AND o.legal_entity_id = p_legal_entity AND o.code = g.code AND NOT o.custom
            UNION ALL
            SELECT c.code, c.name, c.type, c.enabled, true, false, c.version
              FROM company_accounts c
             WHERE c.tenant_id = p_tenant AND c.legal_entity_id = p_legal_entity AND c.custom
          )
          SELECT chart.code, chart.name, chart.type, chart.enabled, chart.custom, chart.header, chart.version,
                 (SELECT count(*) FROM company_subaccounts s
                   WHERE s.tenant_id = p_tenant AND s.legal_entity_id = p_legal_entity AND s.parent_code = chart.code),
                 count(*) OVER ()
            FROM chart
           WHERE (p_q = '' OR strpos(chart.code, p_q) > 0 OR strpos(lower(chart.name), lower(p_q)) > 0)
             AND (p_type IS NULL OR chart.type = p_type)
             AND (p_header IS NULL OR chart.header = p_header)
           ORDER BY chart.code COLLATE "C" LIMIT p_limit OFFSET p_offset;
      END
      $$;
    REVOKE ALL ON FUNCTION app_company_chart_page(uuid, uuid, text, text, boolean, integer, integer) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION app_company_chart_page(uuid, uuid, text, text, boolean, integer, integer) TO ${appRole};

    CREATE FUNCTION accounting_reject_header_parents() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM global_accounts WHERE parent_code = NEW.parent_code) THEN
        RAISE EXCEPTION 'account % is a header account: subaccounts go under its detail accounts', NEW.parent_code
          USING ERRCODE = 'P0C12', HINT = 'header-account';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER company_subaccounts_detail_parent BEFORE INSERT ON company_subaccounts
      FOR EACH ROW EXECUTE FUNCTION accounting_reject_header_parents();
  `);
}

export async function down(context: MigrationContext): Promise<void> {
  await context.sql(`
    DROP TRIGGER IF EXISTS company_subaccounts_detail_parent ON company_subaccounts;
    DROP FUNCTION IF EXISTS accounting_reject_header_parents();
    DROP FUNCTION IF EXISTS app_company_chart_page(uuid, uuid, text, text, boolean, integer, integer);
  `);
  await createPreviousChartPage(context);
}
