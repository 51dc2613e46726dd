import type { Sequelize } from 'sequelize';
import type { Config } from '../../runtime/config';
import type { FactorSecrets } from '../../core/identity/factor-secrets';
import type { OpenApiDocument, OperationIndex } from '../../contracts/operations';
import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import { createKeyedLimit } from '../http/request-limits';
import type { WorkflowClient } from '../workflow-client';
import { createWebhookDeliveries } from './deliveries';
import { createWebhookEndpoints } from './endpoints';
import { createWebhookEventOperations, type WebhookEvents } from './events';

export type WebhookOperation =
  | 'listWebhookEventTypes'
  | 'createWebhookEndpoint'
  | 'listWebhookEndpoints'
  | 'getWebhookEndpoint'
  | 'updateWebhookEndpoint'
  | 'deleteWebhookEndpoint'
  | 'rotateWebhookEndpointSecret'
  | 'listWebhookDeliveries'
  | 'retryWebhookDelivery'
  | 'sendWebhookTestEvent';

/** The workspace's webhook endpoints, their delivery log, and the event catalogue. */
export function webhookHandlers(deps: {
  db: Sequelize;
  doc: OpenApiDocument;
  index: OperationIndex;
  factorSecrets: FactorSecrets;
  workflows: WorkflowClient;
  events: WebhookEvents;
  /**
   * Whether plain http receivers (WEBHOOK_ALLOW_HTTP) and loopback addresses (WEBHOOK_ALLOW_LOOPBACK) are
   * accepted; how often an endpoint may be sent a test event, and with how many undelivered deliveries.
   */
  settings: Pick<Config['webhooks'], 'allowHttp' | 'allowLoopback' | 'testEventsPerEndpoint' | 'maxPendingDeliveries'>;
  /** Counts a test event refused by its limit (the rate-limit metric). */
  onRateLimited?: () => void;
}): HandlersOf<WebhookOperation> {
  const { settings } = deps;
  const endpoints = createWebhookEndpoints({ ...deps, urlRules: settings });
  const deliveries = createWebhookDeliveries(deps);
  const events = createWebhookEventOperations({
    ...deps,
    testLimits: {
      perEndpoint: createKeyedLimit(deps.db, 'webhook-test:endpoint', settings.testEventsPerEndpoint, deps.onRateLimited),
      maxPendingDeliveries: settings.maxPendingDeliveries,
    },
  });
  return {
    listWebhookEventTypes: memberOperation(() => ({ status: 200, body: events.listWebhookEventTypes() })),

    createWebhookEndpoint: memberOperation(async ({ principal, body, ctx }) => {
      const endpoint = await endpoints.createWebhookEndpoint(principal, body, ctx);
      return { status: 201, body: endpoint, headers: { Location: deps.index.pathOf('getWebhookEndpoint', { endpointId: endpoint.id }) } };
    }),

    listWebhookEndpoints: memberOperation(async ({ principal, query }) => ({
      status: 200,
      body: await endpoints.listWebhookEndpoints(principal, pageQuery(query)),
    })),

    getWebhookEndpoint: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await endpoints.getWebhookEndpoint(principal, params.endpointId),
    })),

    updateWebhookEndpoint: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await endpoints.updateWebhookEndpoint(principal, params.endpointId, body, ctx),
    })),

    deleteWebhookEndpoint: memberOperation(async ({ principal, params, ctx }) => {
      await endpoints.deleteWebhookEndpoint(principal, params.endpointId, ctx);
      return { status: 204 };
    }),

    rotateWebhookEndpointSecret: memberOperation(async ({ principal, params, ctx }) => ({
      status: 200,
      body: await endpoints.rotateWebhookEndpointSecret(principal, params.endpointId, ctx),
    })),

    listWebhookDeliveries: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await deliveries.listWebhookDeliveries(principal, params.endpointId, pageQuery(query)),
    })),

    retryWebhookDelivery: memberOperation(async ({ principal, params, ctx }) => ({
      status: 202,
      body: await deliveries.retryWebhookDelivery(principal, params.endpointId, params.deliveryId, ctx),
    })),

    sendWebhookTestEvent: memberOperation(async ({ principal, params, ctx }) => ({
      status: 202,
      body: await events.sendWebhookTestEvent(principal, params.endpointId, ctx),
    })),
  };
}
