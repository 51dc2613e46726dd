import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';

// The trigger functions that look rows up by their key use the generic plan (migration
// 2026.11.29T12.00.00.trigger-generic-plans): planned for the call's values, a company the statistics had not
// met was estimated at one row, and the deferred balance check of its entries read every line the company had
// written through journal_lines_period_idx (5,000 entries in one transaction: 70 s at COMMIT; measured in psql,
// docs/decisions.md). Which plan the call's values get depends on the statistics of the moment, so the test
// pins the setting that makes the plan independent of the tenant's value.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const KEY_LOOKUPS = [
  'ledger_check_entry_lines',
  'allocated_is_sum_of_allocations',
  'invoices_totals_are_line_sums',
  'invoices_vat_groups',
  'journal_lines_copy_source',
  'ledger_reject_closed_dates',
  'invoice_lines_of_drafts_only',
];

test('the trigger functions that read by key keep the generic plan', async () => {
  const rows = await stack.admin.query<{ name: string; config: string[] | null }>(
    'SELECT proname AS name, proconfig AS config FROM pg_proc WHERE proname IN (:names)',
    { replacements: { names: KEY_LOOKUPS }, type: QueryTypes.SELECT },
  );
  expect(rows.map((r) => r.name).sort()).toEqual([...KEY_LOOKUPS].sort());
  for (const row of rows) expect({ name: row.name, config: row.config }).toEqual({ name: row.name, config: expect.arrayContaining(['plan_cache_mode=force_generic_plan']) });
});
