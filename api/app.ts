import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import type { Config } from '../runtime/config';
import type { Logger } from '../runtime/logger';
import type { Mailer } from '../core/mail/mail';
import { createPasswordHasher, type PasswordHasher } from '../core/identity/passwords';
import { createHashGate, type HashGate } from '../core/identity/hash-gate';
import { createAccessTokenIssuer, type AccessTokenIssuer } from '../core/identity/access-tokens';
import { createFactorSecrets } from '../core/identity/factor-secrets';
import { createOperationIndex, loadOpenApiDocument, type OpenApiDocument, type OperationIndex } from '../contracts/operations';
import { createCredentialGuard, createRequestLimits } from './http/request-limits';
import { createWorkflowClient } from './workflow-client';
import { hostGuard, requestContext } from './middleware/request-context';
import { authenticate } from './middleware/authenticate';
import { callbackGuard } from './middleware/callback-guard';
import { problemHandler } from './middleware/problems';
import { keepRawBody } from './middleware/raw-body';
import { mountOperations } from './http/mount-operations';
import { createExportSlots } from './http/export-limits';
import { createXlsxThreads } from './http/xlsx-threads';
import type { OperationHandlers } from './http/operation-handler';
import { createCompanyScopes } from './organisation/company-scope';
import { organisationHandlers } from './organisation/handlers';
import { createInvitations } from './organisation/invitations';
import { createSessionService } from './identity/sessions';
import { createRegistration } from './identity/registration';
import { createPasswordReset } from './identity/password-reset';
import { createLogin } from './identity/login';
import { createMe } from './identity/me';
import { createSecondFactorService } from './identity/second-factors';
import { createSecurity } from './identity/security/use-cases';
import { createSignIn } from './identity/sign-in';
import { identityHandlers } from './identity/handlers';
import { accountingHandlers } from './accounting/handlers';
import { counterpartyHandlers } from './counterparties/handlers';
import { bankAccountHandlers } from './bank-accounts/handlers';
import { invoiceHandlers } from './invoices/handlers';
import { paymentHandlers } from './payments/handlers';
import { fixedAssetHandlers } from './fixed-assets/handlers';
import { bankStatementHandlers } from './bank-statements/handlers';
import { spoolFileBody } from './http/file-body';
import { MAX_STATEMENT_BYTES as MAX_FILE_BODY } from '../adapters/bank-statements/fields';
import { ledgerHandlers } from './ledger/handlers';
import { createPostingGroups } from './ledger/posting-groups';
import { auditHandlers } from './audit/handlers';
import { mailHandlers } from './mail/handlers';
import { serviceHandlers } from './service/handlers';
import { createApiMetrics, type ApiMetrics } from './http/metrics';
import { docsRoutes } from './service/docs';
import { webRoutes } from './web/routes';
import { createMailDomains } from '../adapters/dns/mail-domains';
import { isCalendarDate, isInstant } from '../core/shared/calendar';
import type { MailDomains } from '../core/identity/email-validation';
import { ratesHandlers } from './rates/handlers';
import { createRates } from './rates/rates';
import { notificationHandlers } from './notifications/handlers';
import { createNotifications } from './notifications/notifications';
import { webhookHandlers } from './webhooks/handlers';
import { createWebhookEvents } from './webhooks/events';

export interface AppDeps {
  config: Config;
  db: Sequelize;
  temporal: Client;
  logger: Logger;
  mailer: Mailer;
  /** Built from config when not given. */
  hasher?: PasswordHasher;
  /** Bounds concurrent password hashes; built from config when not given. */
  hashGate?: HashGate;
  tokens?: AccessTokenIssuer;
  doc?: OpenApiDocument;
  taskQueue?: string;
  /** DNS look-ups of email domains; built from config when not given. */
  mailDomains?: MailDomains;
  /** The app's Prometheus metrics, served by the metrics listener (api/server.ts); built when not given. */
  metrics?: ApiMetrics;
}

/** Every operation's handler, by operation id, built from the app's dependencies. */
function createHandlers(
  deps: AppDeps,
  doc: OpenApiDocument,
  index: OperationIndex,
  hasher: PasswordHasher,
  tokens: AccessTokenIssuer,
  metrics: ApiMetrics,
): OperationHandlers {
  const { config, db } = deps;
  const workflows = createWorkflowClient(deps.temporal, {
    db,
    metrics,
    taskQueue: deps.taskQueue ?? config.temporal.taskQueue,
    timeoutMs: config.temporal.workflowResponseTimeoutMs,
  });
  const companies = createCompanyScopes(db);
  const factorSecrets = createFactorSecrets(config.secondFactors.secretKeys);
  const sessions = createSessionService({ db, tokens, sessions: config.sessions });
  const limits = createRequestLimits(db, config.requestLimits, (action) => metrics.countRateLimitRejection(action));
  const guard = createCredentialGuard(db, config.credentialFailures, () => metrics.countRateLimitRejection('credentials'));
  const factors = createSecondFactorService({ db, hasher, factorSecrets, workflows, settings: config.secondFactors, limits });
  const signIn = createSignIn({ db, sessions, factors });
  // Webhook events are recorded by the operations that make the change, in its commit.
  const webhookEvents = createWebhookEvents({ workflows, taskQueue: deps.taskQueue ?? config.temporal.taskQueue });
  // Journal entries and invoices of one company share its group commits.
  const postingGroups = createPostingGroups({ db, webhookEvents, observe: (size, outcome) => metrics.observePostingGroup(size, outcome) });
  // The threads that build XLSX exports, one pool for every report (the ledger's and the VAT register).
  const xlsxThreads = createXlsxThreads(config.exports.xlsxThreads);
  return {
    ...serviceHandlers({ db, workflows, doc }),
    ...mailHandlers({
      db,
      mailer: deps.mailer,
      logger: deps.logger,
      now: () => new Date(),
      limits,
      mailDomains: deps.mailDomains ?? createMailDomains({ servers: config.mail.dnsServers, timeoutMs: config.mail.dnsTimeoutMs }),
    }),
    ...identityHandlers({
      registration: createRegistration({ db, workflows, hasher, factors, signIn, limits, guard }),
      passwordReset: createPasswordReset({ db, workflows, hasher, factors, limits, guard }),
      login: createLogin({ db, hasher, sessions, factors, limits, guard, baseDomain: config.baseDomain }),
      sessions,
      me: createMe({ db }),
      security: createSecurity({ db, hasher, factors, factorSecrets, settings: config.secondFactors, emailDeliveryAvailable: Boolean(deps.mailer) }),
    }),
    ...accountingHandlers({ companies }),
    ...counterpartyHandlers({ companies, xlsxThreads }),
    ...bankAccountHandlers({ companies }),
    ...invoiceHandlers({ companies, webhookEvents, xlsxThreads, postingGroups }),
    ...paymentHandlers({ companies, webhookEvents, xlsxThreads }),
    ...bankStatementHandlers({ companies, workflows, webhookEvents, xlsxThreads }),
    ...fixedAssetHandlers({ companies, webhookEvents }),
    ...ledgerHandlers({ db, companies, workflows, index, webhookEvents, xlsxThreads, postingGroups }),
    ...auditHandlers({ db }),
    ...organisationHandlers({
      db,
      doc,
      index,
      webhookEvents,
      invitations: createInvitations({ db, workflows, hasher, signIn, limits, guard }),
    }),
    ...notificationHandlers({
      db,
      notifications: createNotifications({ db, workflows }),
      // Without FCM credentials the development adapter sends (production refuses to start without them).
      developmentPush: config.push.fcmServiceAccountFile === null,
    }),
    ...ratesHandlers({
      rates: createRates({
        db,
        workflows,
        schedule: { ...config.rates, taskQueue: deps.taskQueue ?? config.temporal.taskQueue },
      }),
    }),
    ...webhookHandlers({
      db,
      doc,
      index,
      factorSecrets,
      workflows,
      events: webhookEvents,
      settings: config.webhooks,
      onRateLimited: () => metrics.countRateLimitRejection('webhookTest'),
    }),
  };
}

/**
 * Builds the Express app: context → one route per operation of the document (authentication → body parser
 * → OpenAPI validation → the handler of its operation id) → problems.
 */
export function createApp(deps: AppDeps): Express {
  const { config, db } = deps;
  const doc = deps.doc ?? loadOpenApiDocument();
  const tokens = deps.tokens ?? createAccessTokenIssuer(config.jwt);
  const index = createOperationIndex(doc);
  const metrics = deps.metrics ?? createApiMetrics(db);
  const hashGate = deps.hashGate ?? createHashGate({ concurrency: config.passwords.hashConcurrency, maxWaitMs: config.passwords.hashMaxWaitMs, perClient: config.passwords.hashPerClient });
  metrics.watchHashGate(hashGate);
  metrics.describeConfiguration({ node_env: config.env, validate_responses: String(config.validateResponses), log_level: config.logLevel, log_format: config.logFormat });
  const hasher = deps.hasher ?? createPasswordHasher({ memoryKib: config.passwords.argon2MemoryKib, timeCost: config.passwords.argon2TimeCost }, hashGate);

  const app = express();
  app.disable('x-powered-by');
  // No ETag: the contract declares no ETag header and no 304 answer for any operation, and Express would hash
  // every JSON body for one (2 to 3 ms for an aging of 5,000 counterparties).
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  // The validator reads these too, so Express, authentication and validation match a path the same way.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(requestContext(deps.logger, config.baseDomain, metrics));
  const callbackOperations = index.operations.filter((op) => op.requiresCallbackToken);
  app.use(hostGuard((path) => callbackOperations.some((op) => op.matcher.test(path))));
  // Bodies are parsed inside each operation's route, after authentication (see mountOperations).
  const jsonTypes = ['application/json', 'application/*+json'];
  const clientBody = express.json({ limit: '256kb', type: jsonTypes, verify: keepRawBody });
  // The provider's event batches (up to 1,000 events) are larger than any request of a client.
  const callbackBody = express.json({ limit: '1mb', type: jsonTypes, verify: keepRawBody });
  // A file sent as it was exported (importBankStatement's statement): its bytes, up to 20 MiB, in the types
  // the document offers for it (a binary body), spooled to disk rather than held; any other type is left for
  // the validator to refuse (415).
  const fileBodies = new Map(
    index.operations.flatMap((op) => {
      const content = (doc.paths[op.path]?.[op.method.toLowerCase()]?.requestBody?.content ?? {}) as Record<string, { schema?: { format?: string } }>;
      const types = Object.entries(content).filter(([, media]) => media.schema?.format === 'binary').map(([type]) => type);
      return types.length > 0 ? [[op.operationId, spoolFileBody({ limit: MAX_FILE_BODY, types })] as const] : [];
    }),
  );
  app.use(docsRoutes(index.pathOf('getOpenApiDocument', {})));
  app.use(webRoutes({ publicUrl: config.publicUrl, baseDomain: config.baseDomain }));
  app.use(
    mountOperations({
      doc,
      index,
      handlers: createHandlers(deps, doc, index, hasher, tokens, metrics),
      authenticate: authenticate({ db, tokens }),
      authenticateCallback: callbackGuard(config.mail.callbackToken),
      parseBody: (op) => fileBodies.get(op.operationId) ?? (op.requiresCallbackToken ? callbackBody : clientBody),
      exportSlots: createExportSlots({ perWorkspace: config.exports.perWorkspace, perProcess: config.exports.perProcess }),
      validator: OpenApiValidator.middleware({
        apiSpec: structuredClone(doc) as never,
        validateRequests: { allowUnknownQueryParameters: false },
        validateResponses: config.validateResponses,
        validateSecurity: false,
        validateFormats: true,
        ajvFormats: { mode: 'full' }, // dates that do not exist (2025-02-30) are 400, not a database error
        // Every date and instant of every request, in one place: a day that exists, from 1900-01-01 to 9999-12-31.
        formats: { date: { type: 'string', validate: isCalendarDate }, 'date-time': { type: 'string', validate: isInstant } },
        ignoreUndocumented: false,
      }),
    }),
  );
  app.use(problemHandler);
  return app;
}
