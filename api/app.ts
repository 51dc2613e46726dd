import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import type { Config } from '../core/config';
import type { Logger } from '../core/logger';
import type { Mailer } from '../core/mail';
import { createPasswordHasher, type PasswordHasher } from '../core/passwords';
import { createAccessTokenIssuer, type AccessTokenIssuer } from '../core/access-tokens';
import { createOperationIndex, loadOpenApiDocument, type OpenApiDocument } from './openapi';
import { createWorkflowRunner } from './workflow-runner';
import { requestContext } from './middleware/request-context';
import { authenticate } from './middleware/authenticate';
import { notFound, problemHandler } from './middleware/problems';
import { keepRawBody } from './middleware/raw-body';
import { createSessionService } from './services/sessions';
import { createRegistrationService } from './services/registration';
import { createLoginService } from './services/login';
import { createMeService } from './services/me';
import { createSecondFactorService } from './services/second-factors';
import { createSecurityService } from './services/security';
import { createFactorSecrets } from '../core/factor-secrets';
import { createChartOfAccountsService } from './services/chart-of-accounts';
import { createSubaccountService } from './services/subaccounts';
import { createAccountingSettingsService } from './services/accounting-settings';
import { createAuditTrailService } from './services/audit-trail';
import { operationsRoutes } from './routes/operations';
import { authRoutes } from './routes/auth';
import { meRoutes } from './routes/me';
import { accountingRoutes } from './routes/accounting';
import { auditRoutes } from './routes/audit';
import { ledgerRoutes } from './routes/ledger';
import { createLedgerService } from './services/ledger';
import { createPeriodCloseService } from './services/period-closes';

export interface AppDeps {
  config: Config;
  db: Sequelize;
  temporal: Client;
  logger: Logger;
  mailer: Mailer;
  /** Built from config when not given. */
  hasher?: PasswordHasher;
  tokens?: AccessTokenIssuer;
  doc?: OpenApiDocument;
  taskQueue?: string;
}

/** Builds the Express app: context → body parser → authentication → OpenAPI validation → routes → problems. */
export function createApp(deps: AppDeps): Express {
  const { config, db } = deps;
  const doc = deps.doc ?? loadOpenApiDocument();
  const hasher = deps.hasher ?? createPasswordHasher(config.passwords.scryptLogN);
  const tokens = deps.tokens ?? createAccessTokenIssuer(config.jwt);
  const operations = createOperationIndex(doc);
  const workflows = createWorkflowRunner(deps.temporal, config.temporal.workflowResponseTimeoutMs);
  const taskQueue = deps.taskQueue ?? config.temporal.taskQueue;
  const sessions = createSessionService({ db, tokens, sessions: config.sessions });
  const registration = createRegistrationService({ db, workflows, taskQueue, hasher, sessions });
  const factorSecrets = createFactorSecrets(config.secondFactors.secretKey);
  const factors = createSecondFactorService({ db, hasher, factorSecrets, workflows, taskQueue, settings: config.secondFactors });
  const login = createLoginService({ db, hasher, sessions, factors, baseDomain: config.baseDomain });
  const me = createMeService({ db });
  const security = createSecurityService({
    db,
    hasher,
    factors,
    factorSecrets,
    settings: config.secondFactors,
    emailDeliveryAvailable: Boolean(deps.mailer),
  });
  const accounts = createChartOfAccountsService({ db });
  const subaccounts = createSubaccountService({ db });
  const settings = createAccountingSettingsService({ db });
  const audit = createAuditTrailService({ db });
  const ledger = createLedgerService({ db });
  const closes = createPeriodCloseService({ db, workflows, taskQueue });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.use(requestContext(deps.logger, config.baseDomain));
  app.use(express.json({ limit: '256kb', type: ['application/json', 'application/*+json'], verify: keepRawBody }));
  app.use(authenticate({ db, tokens, operations }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(doc) as never,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: config.validateResponses,
      validateSecurity: false,
      validateFormats: true,
      ajvFormats: { mode: 'full' }, // dates that do not exist (2025-02-30) are 400, not a database error
      ignoreUndocumented: false,
      ignorePaths: /^\/docs(\/|$)/,
    }),
  );
  app.use(operationsRoutes({ db, temporal: deps.temporal, mailer: deps.mailer, doc: doc }));
  app.use(authRoutes({ registration, login, sessions }));
  app.use(meRoutes({ me, security }));
  app.use(accountingRoutes({ accounts, subaccounts, settings }));
  app.use(auditRoutes({ audit }));
  app.use(ledgerRoutes({ ledger, closes }));
  app.use(notFound);
  app.use(problemHandler);
  return app;
}
