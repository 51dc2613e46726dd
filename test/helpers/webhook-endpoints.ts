import { QueryTypes } from 'sequelize';
import { api, bearer, type Registered } from './clients';
import type { TestStack } from './stack';

// The webhook endpoint operations as a member calls them, and the events, deliveries and outbox starts as
// stored. (Receivers on 127.0.0.1 and delivery-side arrangements are in webhook-deliveries.ts.)

/** The webhook operations as one member. */
export function webhooksApi(stack: TestStack, user: Pick<Registered, 'accessToken'>) {
  const base = '/api/v1/webhooks/endpoints';
  const auth = bearer(user.accessToken);
  return {
    base,
    create: (body: object) => api(stack).post(base).set(...auth).send(body),
    list: (query: Record<string, number> = {}) => api(stack).get(base).query(query).set(...auth),
    get: (id: string) => api(stack).get(`${base}/${id}`).set(...auth),
    update: (id: string, body: object) => api(stack).put(`${base}/${id}`).set(...auth).send(body),
    remove: (id: string) => api(stack).delete(`${base}/${id}`).set(...auth),
    rotate: (id: string) => api(stack).post(`${base}/${id}/secret`).set(...auth),
    deliveries: (id: string, query: Record<string, number> = {}) => api(stack).get(`${base}/${id}/deliveries`).query(query).set(...auth),
    retry: (id: string, deliveryId: string) => api(stack).post(`${base}/${id}/deliveries/${deliveryId}/retry`).set(...auth),
    test: (id: string) => api(stack).post(`${base}/${id}/test`).set(...auth),
    eventTypes: () => api(stack).get('/api/v1/webhooks/event-types').set(...auth),
  };
}

export interface StoredEvent {
  id: string;
  type: string;
  payload: Record<string, unknown>;
}

export interface StoredDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  state: string;
}

/** A workspace's webhook events and deliveries as stored (read around row-level security). */
export async function storedWebhooks(stack: TestStack, tenantId: string): Promise<{ events: StoredEvent[]; deliveries: StoredDelivery[] }> {
  const events = await stack.admin.query<StoredEvent>('SELECT id, type, payload FROM webhook_events WHERE tenant_id = :tenantId ORDER BY occurred_at, id', {
    replacements: { tenantId },
    type: QueryTypes.SELECT,
  });
  const deliveries = await stack.admin.query<StoredDelivery>(
    'SELECT id, endpoint_id, event_id, state FROM webhook_deliveries WHERE tenant_id = :tenantId ORDER BY created_at, id',
    { replacements: { tenantId }, type: QueryTypes.SELECT },
  );
  return { events, deliveries };
}

/** The outbox rows that start the deliveries of one event. */
export function deliveryStarts(stack: TestStack, eventId: string) {
  return stack.admin.query<{ workflow_id: string; workflow_type: string; args: unknown[]; tenant_attribute: string; id_reuse_policy: string; due_now: boolean }>(
    `SELECT workflow_id, workflow_type, args, tenant_attribute, id_reuse_policy, next_attempt_at <= created_at AS due_now
       FROM workflow_starts WHERE args -> 0 ->> 'eventId' = :eventId ORDER BY created_at, id`,
    { replacements: { eventId }, type: QueryTypes.SELECT },
  );
}
