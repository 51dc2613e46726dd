import type { MigrationContext } from './context';

// The trigger functions that look rows up by their key (an entry's lines, an invoice's lines or allocations, a
// payment's allocations, an entry's source, a company's cut-off, an invoice's status) always use the generic plan.
//
// PostgreSQL plans a PL/pgSQL statement for the call's values five times before it may keep a generic plan. For
// the values, a tenant the statistics have not met (every company created since the last ANALYZE, and any but
// the largest when one tenant fills the sample: 2026.11.29T06.00.00.tenant-statistics keeps one most common
// value) is estimated at one row, and every index that leads with `tenant_id` then costs the same. The deferred
// balance check of a new company's entries was planned through `journal_lines_period_idx` with only the tenant
// as its condition and the entry as a filter: each check read every line the company had written, so a
// transaction of 5,000 entries took 70 s at COMMIT (3,000: 37 s; with the generic plan 0.11 s, by the primary
// key). A generic plan does not depend on the tenant's estimate: the key's columns decide, and it is planned once
// per connection, not on every call.

const FUNCTIONS = [
  'ledger_check_entry_lines()',
  'allocated_is_sum_of_allocations()',
  'invoices_totals_are_line_sums()',
  'invoices_vat_groups()',
  'journal_lines_copy_source()',
  'ledger_reject_closed_dates()',
  'invoice_lines_of_drafts_only()',
];

export async function up({ sql }: MigrationContext): Promise<void> {
  for (const fn of FUNCTIONS) await sql(`ALTER FUNCTION ${fn} SET plan_cache_mode = force_generic_plan;`);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  for (const fn of FUNCTIONS) await sql(`ALTER FUNCTION ${fn} RESET plan_cache_mode;`);
}
