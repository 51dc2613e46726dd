// The month-end close of a company with many fixed assets, against a running API (`npm start`) and worker:
//   npm run bench:fixed-assets   (BENCH_URL, BENCH_ASSETS=10000)
// Two companies close January 2026: one without assets (the close's own time), one with BENCH_ASSETS assets in
// service since December 2025 (costs and lives vary), loaded straight into the database behind one
// commissioning entry posted through the API. Each close is timed from the request to COMPLETED; the
// depreciation step is the child workflow depreciation-<company>-<date>, timed by Temporal (start to close).
import { Client, Connection } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../runtime/config';
import { createSequelize } from '../db/connection';
import { temporalConnectionOptions } from '../adapters/temporal/connection';
import { postDepreciationWorkflowId } from '../contracts/workflow-ids';
import { BASE, post, requireRunningApi } from './harness';
import { workspace, type Workspace } from './ledger';

const ASSETS = Number(process.env.BENCH_ASSETS ?? 10000);
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });

const COMMISSIONED_ON = '2025-12-15';
const CLOSE_DATE = '2026-01-31';

/** Costs from 1 000 000.00 to about 50 000 000.00 UZS (the SQL below gives the same), lives of 12 to 120 months: charges that round differently. */
const costOf = (i: number) => 1_000_000 + ((i * 7919) % 49_000_000) + ((i * 37) % 100) / 100;

/**
 * Posts one commissioning entry for all the assets through the API (Dr 0150 / Cr 0820, their total cost), then
 * inserts the assets IN_SERVICE behind it as the owner role (under row-level security, as the tenant).
 */
async function loadAssets(ws: Workspace, count: number): Promise<number> {
  const started = performance.now();
  const total = Array.from({ length: count }, (_, i) => Math.round(costOf(i) * 100)).reduce((s, c) => s + c, 0);
  const amount = `${Math.floor(total / 100)}.${String(total % 100).padStart(2, '0')}`;
  const res = await post(
    `/api/v1/ledger/${ws.legalEntityId}/entries`,
    {
      requestId: crypto.randomUUID(),
      entryDate: COMMISSIONED_ON,
      description: `Commissioning of ${count} assets`,
      lines: [
        { accountCode: '0150', debit: amount, credit: '0' },
        { accountCode: '0820', debit: '0', credit: amount },
      ],
    },
    { authorization: `Bearer ${ws.accessToken}` },
  );
  if (res.status !== 201) throw new Error(`the commissioning entry answered ${res.status}: ${await res.text()}`);
  const entryId = ((await res.json()) as { id: string }).id;
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    await owner.transaction(async (tx) => {
      const replacements = { t: ws.tenantId, le: ws.legalEntityId, n: count, entry: entryId, on: COMMISSIONED_ON };
      await owner.query(`SELECT set_config('app.tenant_id', :t, true)`, { replacements, type: QueryTypes.SELECT, transaction: tx });
      await owner.query(
        `INSERT INTO fixed_assets (tenant_id, id, legal_entity_id, inventory_number, name, asset_account, depreciation_account, expense_account, source_account,
                                   cost, salvage_value, useful_life_months, status, commissioned_on, commissioning_entry_id, version)
         SELECT CAST(:t AS uuid), gen_random_uuid(), CAST(:le AS uuid), 'B-' || lpad(g::text, 6, '0'), 'Benchmark asset ' || g, '0150', '0250',
                (ARRAY['9420', '9410'])[1 + g % 2], '0820',
                round(1000000 + ((g - 1) * 7919) % 49000000 + (((g - 1) * 37) % 100) / 100.0, 2), 0, 12 + ((g - 1) * 13) % 109,
                'IN_SERVICE', CAST(:on AS date), CAST(:entry AS uuid), 2
           FROM generate_series(1, :n) g`,
        { replacements, type: QueryTypes.RAW, transaction: tx },
      );
    });
    await owner.query('ANALYZE fixed_assets', { type: QueryTypes.RAW });
  } finally {
    await owner.close();
  }
  return (performance.now() - started) / 1000;
}

/** Closes the company through `closeDate` and polls the close to COMPLETED: the wall time. */
async function timeClose(ws: Workspace, closeDate: string): Promise<number> {
  const auth = { authorization: `Bearer ${ws.accessToken}` };
  const started = performance.now();
  const res = await post(`/api/v1/ledger/${ws.legalEntityId}/periods/close`, { requestId: crypto.randomUUID(), closeDate }, auth);
  if (res.status !== 202) throw new Error(`the close answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const view = (await (await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}/periods/${id}`, { headers: auth })).json()) as { status: string; failureReason?: string };
    if (view.status === 'COMPLETED') return (performance.now() - started) / 1000;
    if (view.status === 'FAILED') throw new Error(`the close failed: ${view.failureReason}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The depreciation child workflow's run, start to close, as Temporal recorded it. */
async function stepSeconds(legalEntityId: string, closeDate: string): Promise<number> {
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const described = await client.workflow.getHandle(postDepreciationWorkflowId(legalEntityId, closeDate)).describe();
    if (!described.closeTime) throw new Error('the depreciation step has not ended');
    return (described.closeTime.getTime() - described.startTime.getTime()) / 1000;
  } finally {
    await connection.close();
  }
}

export interface FixedAssetCloseResult {
  assets: number;
  loadSeconds: number;
  /** The close of a company without assets, request to COMPLETED. */
  emptyCloseSeconds: number;
  emptyStepSeconds: number;
  closeSeconds: number;
  stepSeconds: number;
  lines: number;
}

/** A close without assets, then one with `assets` of them: their times and the depreciation step's. */
export async function measureFixedAssetClose(assets = ASSETS): Promise<FixedAssetCloseResult> {
  const empty = await workspace();
  const emptyCloseSeconds = await timeClose(empty, CLOSE_DATE);
  const emptyStepSeconds = await stepSeconds(empty.legalEntityId, CLOSE_DATE);
  const ws = await workspace();
  const loadSeconds = await loadAssets(ws, assets);
  const closeSeconds = await timeClose(ws, CLOSE_DATE);
  const entries = (await (
    await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}/entries?size=10`, { headers: { authorization: `Bearer ${ws.accessToken}` } })
  ).json()) as { items: Array<{ kind: string; id: string }> };
  const depreciation = entries.items.find((e) => e.kind === 'DEPRECIATION');
  if (!depreciation) throw new Error('the close posted no DEPRECIATION entry');
  const entry = (await (await fetch(`${BASE}/api/v1/ledger/${ws.legalEntityId}/entries/${depreciation.id}`, { headers: { authorization: `Bearer ${ws.accessToken}` } })).json()) as {
    lines: unknown[];
  };
  return { assets, loadSeconds, emptyCloseSeconds, emptyStepSeconds, closeSeconds, stepSeconds: await stepSeconds(ws.legalEntityId, CLOSE_DATE), lines: entry.lines.length };
}

async function main(): Promise<void> {
  await requireRunningApi();
  console.log(`Fixed assets at the close against ${BASE}, Node ${process.version}, ${new Date().toISOString()}`);
  const r = await measureFixedAssetClose();
  console.log(`\nThe close of ${CLOSE_DATE}: a company without assets, then one with ${r.assets} assets in service (loaded in ${r.loadSeconds.toFixed(1)} s)\n`);
  console.table([
    { company: 'no assets', 'close s (request → COMPLETED)': r.emptyCloseSeconds.toFixed(2), 'depreciation step s': r.emptyStepSeconds.toFixed(2), 'entry lines': 0 },
    { company: `${r.assets} assets`, 'close s (request → COMPLETED)': r.closeSeconds.toFixed(2), 'depreciation step s': r.stepSeconds.toFixed(2), 'entry lines': r.lines },
  ]);
  console.log(`The step adds ${(r.closeSeconds - r.emptyCloseSeconds).toFixed(2)} s to the close (goal ≤ 2 s).`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err instanceof Error ? `${err.stack}${err.cause ? ` (${String(err.cause)})` : ''}` : err);
    process.exit(1);
  });
}
