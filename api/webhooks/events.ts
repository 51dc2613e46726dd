import type { Sequelize } from 'sequelize';
import { AppError } from '../../core/shared/problems';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../contracts/webhooks';
import type { OpenApiDocument } from '../../contracts/operations';
import { withTenant, type Statement, type Tx } from '../../db/connection';
import { countPendingDeliveries } from '../../db/repositories/webhooks/deliveries';
import { findEndpoint, type EndpointRow } from '../../db/repositories/webhooks/endpoints';
import { recordWebhookEvent, recordWebhookTestEvent, webhookEventStatement, type RecordedStart, type RecordOptions, type WebhookEvent } from '../../db/repositories/webhooks/events';
import type { Principal, RequestContext } from '../http/context';
import type { KeyedLimit } from '../http/request-limits';
import type { Schemas } from '../http/operation-handler';
import type { WorkflowClient } from '../workflow-client';
import { recordCallerEvent } from '../../services/audit/caller-events';

/**
 * How a request produces webhook events: recorded in its own transaction (with the change that causes
 * them, so a rolled-back change sends nothing), dispatched right after its commit. What dispatch cannot
 * start (Temporal unreachable, the process gone) the start relay starts later.
 */
export interface WebhookEvents {
  /** For repository statements that record an event inside a batch (the posting path). */
  readonly options: RecordOptions;
  record(tx: Tx, tenantId: string, event: WebhookEvent): Promise<RecordedStart[]>;
  /** `record` as a statement for the caller's batch; its one row's starts are recordedStartsOf's. */
  statement(tenantId: string, event: WebhookEvent): Statement;
  /** Starts the deliveries' workflows; call after the commit. */
  dispatch(starts: RecordedStart[]): Promise<void>;
}

export function createWebhookEvents(deps: { workflows: WorkflowClient; taskQueue: string }): WebhookEvents {
  const options: RecordOptions = { taskQueue: deps.taskQueue, dispatch: 'caller' };
  return {
    options,
    record: (tx, tenantId, event) => recordWebhookEvent(tx, { tenantId }, event, options),
    statement: (tenantId, event) => webhookEventStatement({ tenantId }, event, options),
    async dispatch(starts) {
      for (const { startId } of starts) await deps.workflows.dispatch({ id: startId });
    },
  };
}

/** The event types with their payload schemas, read once from the document (the one place they are defined). */
function eventTypesOf(doc: OpenApiDocument): Schemas['WebhookEventTypeInfo'][] {
  const schemas = ((doc.components as { schemas?: Record<string, Record<string, unknown>> } | undefined)?.schemas ?? {});
  const byType = new Map<string, { schema: string; description: string }>();
  for (const [name, schema] of Object.entries(schemas)) {
    const type = schema['x-webhook-event-type'];
    if (typeof type === 'string') byType.set(type, { schema: name, description: String(schema.description ?? '') });
  }
  return WEBHOOK_EVENT_TYPES.map((type: WebhookEventType) => {
    const found = byType.get(type);
    if (!found) throw new Error(`the OpenAPI document has no payload schema for the webhook event type ${type}`);
    return { type, ...found };
  });
}

const TEST_MESSAGE = 'A test event, sent on request: this endpoint receives and verifies signed events.';

/** How often one endpoint may be sent a test event, and how many undelivered deliveries it may have then. */
export interface TestEventLimits {
  /** Keyed by endpoint id (RATE_LIMIT_WEBHOOK_TEST_PER_ENDPOINT, one per 10 s). */
  perEndpoint: KeyedLimit;
  /** PENDING deliveries past which a test event is refused (WEBHOOK_MAX_PENDING_DELIVERIES). */
  maxPendingDeliveries: number;
}

/** The event catalogue and the test event. */
export function createWebhookEventOperations(deps: { db: Sequelize; doc: OpenApiDocument; events: WebhookEvents; testLimits: TestEventLimits }) {
  const { db, events } = deps;
  const { perEndpoint, maxPendingDeliveries } = deps.testLimits;
  const catalogue = eventTypesOf(deps.doc);

  function listWebhookEventTypes(): Schemas['WebhookEventTypeInfo'][] {
    return catalogue;
  }

  /** Refuses a test event to an endpoint that is not there, is disabled, or has its most undelivered deliveries. */
  async function assertTestable(tx: Tx, scope: { tenantId: string }, endpoint: EndpointRow | null): Promise<void> {
    if (!endpoint) throw new AppError('not-found', 'No webhook endpoint with this id in your workspace');
    if (!endpoint.enabled) throw new AppError('conflict', 'The endpoint is disabled: enable it before sending it a test event');
    // Each test event is a delivery retried for WEBHOOK_RETRY_HOURS: past the bound they would only pile up.
    const pending = await countPendingDeliveries(tx, scope, endpoint.id, maxPendingDeliveries);
    if (pending >= maxPendingDeliveries) {
      throw new AppError(
        'webhook-deliveries-pending',
        `The endpoint has ${pending} undelivered deliveries, the most it may have for a test event: let its receiver answer, or wait for them to settle`,
        { limit: maxPendingDeliveries, pending },
      );
    }
  }

  /**
   * Records a webhook.test event with one delivery to the endpoint (whatever it subscribes to), then starts it.
   * At most one per endpoint per window (429), and none while the endpoint has its most undelivered deliveries
   * (409): each is a workflow retried for a day. An unknown, disabled or backlogged endpoint spends nothing of
   * the window.
   */
  async function sendWebhookTestEvent(principal: Principal, endpointId: string, ctx: RequestContext): Promise<Schemas['WebhookTestAccepted']> {
    const scope = { tenantId: principal.tenantId };
    await withTenant(db, scope.tenantId, async (tx) => assertTestable(tx, scope, await findEndpoint(tx, scope, endpointId)));
    // Counted on its own connection, outside the transactions: a request never holds two of the pool's.
    await perEndpoint.consume(endpointId);
    const recorded = await withTenant(db, scope.tenantId, async (tx) => {
      // Again under the endpoint's lock: it may have changed (or filled up) since.
      await assertTestable(tx, scope, await findEndpoint(tx, scope, endpointId, { lock: true }));
      const test = (await recordWebhookTestEvent(tx, scope, endpointId, { endpointId, message: TEST_MESSAGE }, events.options))!;
      await recordCallerEvent(tx, principal, ctx, {
        action: 'webhooks.test.sent',
        subjectType: 'WEBHOOK_ENDPOINT',
        subjectId: endpointId,
        details: `event ${test.eventId}, delivery ${test.start.deliveryId}`,
      });
      return test;
    });
    await events.dispatch([recorded.start]);
    return { eventId: recorded.eventId, deliveryId: recorded.start.deliveryId };
  }

  return { listWebhookEventTypes, sendWebhookTestEvent };
}
