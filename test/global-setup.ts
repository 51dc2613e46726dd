import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { loadConfig, databaseName } from '../runtime/config';
import { dropDatabase, setupDatabase } from '../db/setup';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { temporalConnectionOptions } from '../adapters/temporal/connection';
import { createLogger } from '../runtime/logger';

export const BUNDLE_PATH = path.join(__dirname, '.tmp', 'workflow-bundle.js');

/** Once per run: a fresh test database (roles, schema) and one workflow bundle shared by every test file. */
export default async function globalSetup(): Promise<void> {
  if (!process.env.TEMPORAL_ADDRESS) {
    throw new Error('TEMPORAL_ADDRESS is not set: run the tests with `npm test`, which starts a Temporal dev server');
  }
  const config = loadConfig({ ...process.env, NODE_ENV: 'test' });
  if (config.database.adminUrl) await dropDatabase(config, databaseName(config.database.url));
  await setupDatabase(config);
  await ensureSearchAttributes(temporalConnectionOptions(config.temporal), config.temporal.namespace, createLogger('warn'));
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: { info: () => undefined, warn: () => undefined, error: console.error, debug: () => undefined, trace: () => undefined, log: () => undefined },
  });
  mkdirSync(path.dirname(BUNDLE_PATH), { recursive: true });
  writeFileSync(BUNDLE_PATH, code);
}
