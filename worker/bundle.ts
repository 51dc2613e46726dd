import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

// `node dist/worker/bundle.js FILE`: writes the workflow bundle once, for workers started with
// WORKFLOW_BUNDLE_PATH=FILE. Several workers on one machine then skip bundling at start (seconds of CPU each).

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: node dist/worker/bundle.js OUTPUT_FILE');
  const quiet = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: { info: quiet, debug: quiet, trace: quiet, log: quiet, warn: console.warn, error: console.error },
  });
  mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  writeFileSync(out, code);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
