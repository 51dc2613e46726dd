import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createActivities } from '../activities';
import type { Config } from '../runtime/config';
import type { Logger } from '../runtime/logger';
import type { Mailer } from '../core/mail/mail';
import { createOperationIndex, loadOpenApiDocument } from '../contracts/operations';
import { createFactorSecrets } from '../core/identity/factor-secrets';
import { createRateSources } from '../adapters/rates';
import { createPushSender } from '../adapters/push';
import { createWebhookSender } from '../adapters/webhooks/http-sender';
import { storePushOutbox } from '../db/repositories/notifications/outbox';

export interface WorkerDeps {
  config: Config;
  connection: NativeConnection;
  db: Sequelize;
  mailer: Mailer;
  logger: Logger;
  taskQueue?: string;
  /** A prebuilt workflow bundle (tests build one per run); otherwise workflows are bundled at start. */
  workflowBundlePath?: string;
}

export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  const activities = createActivities({
    db: deps.db,
    mailer: deps.mailer,
    logger: deps.logger,
    publicUrl: deps.config.publicUrl,
    baseDomain: deps.config.baseDomain,
    magicLinkTtlSeconds: deps.config.registration.magicLinkTtlSeconds,
    magicLinksPerEmailPerHour: deps.config.registration.magicLinksPerEmailPerHour,
    passwordReset: deps.config.passwordReset,
    linkResends: deps.config.linkResends,
    // New workspaces get the default roles the OpenAPI document names for each permission.
    defaultPermissions: createOperationIndex(loadOpenApiDocument()).defaultPermissions(),
    factorSecrets: createFactorSecrets(deps.config.secondFactors.secretKeys),
    emailCodeTtlSeconds: deps.config.secondFactors.emailCodeTtlSeconds,
    rateSources: createRateSources(deps.config.rates),
    pushSender: createPushSender(deps.config.push, { store: (n) => storePushOutbox(deps.db, n) }),
    webhookSender: createWebhookSender({
      allowHttp: deps.config.webhooks.allowHttp,
      allowLoopback: deps.config.webhooks.allowLoopback,
      timeoutMs: deps.config.webhooks.attemptTimeoutMs,
    }),
    webhooks: deps.config.webhooks,
  });
  const bundlePath = deps.workflowBundlePath ?? deps.config.temporal.workflowBundlePath;
  const workflows: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = bundlePath
    ? { workflowBundle: { codePath: bundlePath } }
    : { workflowsPath: require.resolve('../workflows') };
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: deps.taskQueue ?? deps.config.temporal.taskQueue,
    activities,
    ...workflows,
    maxConcurrentWorkflowTaskExecutions: deps.config.temporal.worker.maxConcurrentWorkflowTasks,
    maxConcurrentActivityTaskExecutions: deps.config.temporal.worker.maxConcurrentActivities,
    maxCachedWorkflows: deps.config.temporal.worker.maxCachedWorkflows,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: deps.config.temporal.worker.workflowTaskPollers },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: deps.config.temporal.worker.activityTaskPollers },
  });
}
