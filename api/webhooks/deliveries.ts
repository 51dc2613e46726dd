import type { Sequelize } from 'sequelize';
import { AppError } from '../../core/shared/problems';
import { DELIVER_WEBHOOK_WORKFLOW, type DeliverWebhookWorkflow } from '../../contracts/webhooks';
import { deliverWebhookWorkflowId } from '../../contracts/workflow-ids';
import { withTenant } from '../../db/connection';
import { findEndpoint } from '../../db/repositories/webhooks/endpoints';
import { findDelivery, listDeliveries, reopenFailedDelivery, type DeliveryRow } from '../../db/repositories/webhooks/deliveries';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import type { WorkflowClient } from '../workflow-client';
import { recordCallerEvent } from '../../services/audit/caller-events';

const NO_ENDPOINT = 'No webhook endpoint with this id in your workspace';

function viewOf(row: DeliveryRow): Schemas['WebhookDelivery'] {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    state: row.state,
    attemptCount: row.attemptCount,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    settledAt: row.settledAt?.toISOString() ?? null,
  };
}

/** An endpoint's delivery log, and retrying a FAILED delivery. */
export function createWebhookDeliveries(deps: { db: Sequelize; workflows: WorkflowClient }) {
  const { db, workflows } = deps;

  async function listWebhookDeliveries(principal: Principal, endpointId: string, page: PageQuery): Promise<Schemas['WebhookDeliveryPage']> {
    const scope = { tenantId: principal.tenantId };
    const { rows, total } = await withTenant(db, scope.tenantId, async (tx) => {
      if (!(await findEndpoint(tx, scope, endpointId))) throw new AppError('not-found', NO_ENDPOINT);
      return listDeliveries(tx, scope, endpointId, { limit: page.size, offset: page.page * page.size });
    });
    return pageOf(rows.map(viewOf), page, total);
  }

  /**
   * A FAILED delivery becomes PENDING and its workflow runs again under the same id (the closed run's id
   * may be reused), recorded in the outbox with the change and started after the commit.
   */
  async function retryWebhookDelivery(principal: Principal, endpointId: string, deliveryId: string, ctx: RequestContext): Promise<Schemas['WebhookDelivery']> {
    const scope = { tenantId: principal.tenantId };
    const ids = { endpointId, deliveryId };
    const { delivery, startId } = await withTenant(db, scope.tenantId, async (tx) => {
      const endpoint = await findEndpoint(tx, scope, endpointId, { lock: true });
      if (!endpoint) throw new AppError('not-found', NO_ENDPOINT);
      const current = await findDelivery(tx, scope, ids);
      if (!current) throw new AppError('not-found', 'No delivery with this id to this endpoint');
      if (!endpoint.enabled) throw new AppError('conflict', 'The endpoint is disabled: enable it before retrying its deliveries');
      if (current.state !== 'FAILED' || !(await reopenFailedDelivery(tx, scope, ids))) {
        throw new AppError('conflict', `Only a FAILED delivery can be retried; this one is ${current.state}`);
      }
      const startId = await workflows.enqueue<DeliverWebhookWorkflow>(tx, DELIVER_WEBHOOK_WORKFLOW, {
        workflowId: deliverWebhookWorkflowId(endpointId, current.eventId),
        args: [{ tenantId: scope.tenantId, endpointId, eventId: current.eventId, deliveryId }],
        tenantId: scope.tenantId,
        // The first run has ended (it settled the delivery FAILED): a new run of the same id is the retry.
        idReusePolicy: 'ALLOW_DUPLICATE',
      });
      await recordCallerEvent(tx, principal, ctx, {
        action: 'webhooks.delivery.retried',
        subjectType: 'WEBHOOK_DELIVERY',
        subjectId: deliveryId,
        details: `endpoint ${endpointId}, event ${current.eventId} (${current.eventType}), after ${current.attemptCount} attempt(s)`,
      });
      return { delivery: (await findDelivery(tx, scope, ids))!, startId };
    });
    await workflows.dispatch({ id: startId });
    return viewOf(delivery);
  }

  return { listWebhookDeliveries, retryWebhookDelivery };
}
