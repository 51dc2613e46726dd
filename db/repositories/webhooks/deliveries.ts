import { fn } from 'sequelize';
import { WebhookDelivery } from '../../models';
import { selectRows, type Tx } from '../../connection';
import type { WebhookEventType } from '../../../contracts/webhooks';

// The delivery log of an endpoint. Serves listWebhookDeliveries, retryWebhookDelivery and sendWebhookTestEvent
// (its undelivered deliveries). The page and the bounded count of PENDING deliveries are raw SQL (deliveries
// joined with their events' types; a count that stops at its bound); the count and the reopening of a FAILED
// delivery go through the model.

type Scope = { tenantId: string };

export interface DeliveryRow {
  id: string;
  eventId: string;
  eventType: WebhookEventType;
  state: 'PENDING' | 'DELIVERED' | 'FAILED';
  attemptCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  settledAt: Date | null;
}

const COLUMNS = `d.id, d.event_id AS "eventId", e.type AS "eventType", d.state, d.attempt_count AS "attemptCount",
  d.last_status_code AS "lastStatusCode", d.last_error AS "lastError", d.next_attempt_at AS "nextAttemptAt",
  d.created_at AS "createdAt", d.settled_at AS "settledAt"`;
const FROM = 'webhook_deliveries d JOIN webhook_events e ON e.tenant_id = d.tenant_id AND e.id = d.event_id';

/** The endpoint's deliveries, newest first. */
export async function listDeliveries(tx: Tx, scope: Scope, endpointId: string, page: { limit: number; offset: number }): Promise<{ rows: DeliveryRow[]; total: number }> {
  const total = await WebhookDelivery.count({ where: { tenantId: scope.tenantId, endpointId }, transaction: tx });
  const rows = await selectRows<DeliveryRow>(
    tx,
    `SELECT ${COLUMNS} FROM ${FROM} WHERE d.tenant_id = :tenantId AND d.endpoint_id = :endpointId
      ORDER BY d.created_at DESC, d.id DESC LIMIT :limit OFFSET :offset`,
    { ...scope, endpointId, ...page },
  );
  return { rows, total };
}

/** One delivery of the endpoint, or null. */
export async function findDelivery(tx: Tx, scope: Scope, ids: { endpointId: string; deliveryId: string }): Promise<DeliveryRow | null> {
  const [row] = await selectRows<DeliveryRow>(
    tx,
    `SELECT ${COLUMNS} FROM ${FROM} WHERE d.tenant_id = :tenantId AND d.endpoint_id = :endpointId AND d.id = :deliveryId`,
    { ...scope, ...ids },
  );
  return row ?? null;
}

/**
 * A FAILED delivery becomes PENDING again (its attempts so far are kept, and counted on); false when it is
 * not FAILED (PENDING or DELIVERED, or settled by a concurrent retry).
 */
export async function reopenFailedDelivery(tx: Tx, scope: Scope, ids: { endpointId: string; deliveryId: string }): Promise<boolean> {
  const [reopened] = await WebhookDelivery.update(
    { state: 'PENDING', settledAt: null, nextAttemptAt: fn('now') as unknown as Date },
    { where: { tenantId: scope.tenantId, endpointId: ids.endpointId, id: ids.deliveryId, state: 'FAILED' }, transaction: tx },
  );
  return reopened > 0;
}

/** The endpoint's undelivered (PENDING) deliveries, counted up to `atMost` (the partial index of PENDING ones). */
export async function countPendingDeliveries(tx: Tx, scope: Scope, endpointId: string, atMost: number): Promise<number> {
  const [row] = await selectRows<{ pending: number }>(
    tx,
    `SELECT count(*)::int AS pending FROM (
       SELECT 1 FROM webhook_deliveries WHERE tenant_id = :tenantId AND endpoint_id = :endpointId AND state = 'PENDING' LIMIT :atMost
     ) p`,
    { ...scope, endpointId, atMost },
  );
  return row!.pending;
}
