import type { MigrationContext } from './context';

// The account list's function (app_company_chart_page) is PL/pgSQL so that its query's plan is cached per
// connection (2026.11.23T18.00.00.chart-page-plan-cache). PostgreSQL plans it for the call's values five times,
// then may switch to a generic plan for any values; since the header filter (2026.11.26T10.00.00.chart-headers),
// the generic plan keeps every optional filter (search, type, header) and computes each account's header flag
// and subaccount count before it filters and sorts: 4.4 ms a page of 50 where the plan for the call's values
// takes 0.6 ms, planning included (psql, ten calls in one session as the app role: the sixth and later calls
// were the slow ones). The benchmark's account list fell to 7 % of /healthz. The function now always plans for
// its values: its planning is a fraction of what the generic plan lost.

const SIGNATURE = 'app_company_chart_page(uuid, uuid, text, text, boolean, integer, integer)';

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`ALTER FUNCTION ${SIGNATURE} SET plan_cache_mode = force_custom_plan;`);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`ALTER FUNCTION ${SIGNATURE} RESET plan_cache_mode;`);
}
