import type { MigrationContext } from './context';

// A tenant (a company) the statistics have not met was planned as holding no rows. ANALYZE keeps the most
// common values of a column; while there are fewer tenants than the list's length (100), every tenant is in
// it, their frequencies add up to 1, and any other tenant id is estimated at zero rows (one, clamped). Every
// index that leads with tenant_id then looks as cheap as any other, and the planner took the one with the
// fewest conditions: a posting's request-id check scanned all of a new company's entries through an index of
// (tenant_id, id) instead of the unique (tenant_id, legal_entity_id, request_id) key, and its invoice read all
// of its invoices through the counterparty index (1 ms and 0.8 ms of the posting's 2.2 ms opening, measured
// with EXPLAIN ANALYZE as the app role). Autovacuum analyzes a table again only after a tenth of it changed,
// so a new tenant stays unknown for long, in production as in the benchmarks. The tenant and company columns
// now keep one most common value (the largest tenant's): any other id is estimated at an average tenant's
// share, and a lookup by a unique key is planned by that key. A test checks every tenant table.

const alterAll = (target: number) => `
  DO $$
  DECLARE c record;
  BEGIN
    FOR c IN SELECT cl.relname, a.attname FROM pg_attribute a JOIN pg_class cl ON cl.oid = a.attrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
              WHERE n.nspname = 'public' AND cl.relkind IN ('r', 'p') AND a.attname IN ('tenant_id', 'legal_entity_id') AND NOT a.attisdropped
    LOOP
      EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET STATISTICS ${target}', c.relname, c.attname);
      EXECUTE format('ANALYZE %I (%I)', c.relname, c.attname);
    END LOOP;
  END $$;`;

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(alterAll(1));
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(alterAll(-1));
}
