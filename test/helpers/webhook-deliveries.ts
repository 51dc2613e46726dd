import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { createFactorSecrets } from '../../core/identity/factor-secrets';
import type { WebhookEventType } from '../../contracts/webhooks';
import { DELIVER_WEBHOOK_WORKFLOW, type DeliverWebhookResult } from '../../contracts/webhooks';
import { deliverWebhookWorkflowId } from '../../contracts/workflow-ids';
import { withTenant } from '../../db/connection';
import { recordWebhookEvent } from '../../db/repositories/webhooks/events';
import type { TestStack } from './stack';
import { until } from './worker-process';

// Webhook delivery as a receiver sees it: receivers on 127.0.0.1 whose answers a test decides request by
// request, endpoints arranged in the database (their secret sealed as the service seals it), events
// recorded as the operations record them (the start outbox starts their workflows), and the stored rows.

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers its nth request (0-based): a status, or 'hold' (no answer until released). */
export type Answer = (n: number, request: ReceivedRequest) => number | 'hold';

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** Requests in flight now, and the most there ever were at once. */
  inFlight: number;
  mostInFlight: number;
  /** Answers every held request (and every later one that would be held) with this status. */
  release(status: number): void;
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 204): Promise<Receiver> {
  const held: ServerResponse[] = [];
  let released: number | null = null;
  const receiver = { received: [] as ReceivedRequest[], inFlight: 0, mostInFlight: 0 } as Receiver;
  const server = createServer((req, res) => {
    receiver.inFlight += 1;
    receiver.mostInFlight = Math.max(receiver.mostInFlight, receiver.inFlight);
    let open = true;
    const done = () => {
      if (open) receiver.inFlight -= 1;
      open = false;
    };
    res.on('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const n = receiver.received.push(request) - 1;
      const status = answer(n, request);
      if (status !== 'hold') res.writeHead(status).end();
      else if (released !== null) res.writeHead(released).end();
      else held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?token=receiver-own-token`;
  receiver.release = (status) => {
    released = status;
    for (const res of held.splice(0)) res.writeHead(status).end();
  };
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/** An endpoint as createWebhookEndpoint stores it, arranged by the superuser; answers its id and its `whsec_` secret. */
export async function arrangeEndpoint(
  stack: TestStack,
  tenantId: string,
  url: string,
  options: { eventTypes?: WebhookEventType[]; previousSecret?: { until: 'future' | 'past' }; failingSinceDaysAgo?: number } = {},
): Promise<{ id: string; secret: string; previousSecret: string | null }> {
  const sealer = createFactorSecrets(stack.config.secondFactors.secretKeys);
  const id = randomUUID();
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const previousSecret = options.previousSecret ? `whsec_${randomBytes(32).toString('base64')}` : null;
  await stack.admin.query(
    `INSERT INTO webhook_endpoints (tenant_id, id, url, event_types, secret_sealed, previous_secret_sealed, previous_secret_until, failing_since)
     VALUES (:tenantId, :id, :url, ARRAY[:eventTypes]::text[], :sealed, :previousSealed,
             CASE WHEN :previousUntil = 'future' THEN now() + interval '1 hour' WHEN :previousUntil = 'past' THEN now() - interval '1 second' END,
             now() - make_interval(days => CAST(:failingDays AS integer)))`,
    {
      replacements: {
        tenantId,
        id,
        url,
        eventTypes: options.eventTypes ?? ['webhook.test'],
        sealed: sealer.encrypt('webhook-secret', id, secret),
        previousSealed: previousSecret ? sealer.encrypt('webhook-secret', id, previousSecret) : null,
        previousUntil: options.previousSecret?.until ?? null,
        failingDays: options.failingSinceDaysAgo ?? null,
      },
    },
  );
  return { id, secret, previousSecret };
}

/**
 * Records an event as the operations do (recordWebhookEvent in a tenant transaction), with its starts left
 * to the stack's relay. Answers the event and its delivery to `endpointId`.
 */
export async function recordEvent(
  stack: TestStack,
  tenantId: string,
  endpointId: string,
  event: { type: WebhookEventType; data: Record<string, unknown> },
): Promise<{ eventId: string; deliveryId: string }> {
  await withTenant(stack.db, tenantId, (tx) => recordWebhookEvent(tx, { tenantId }, event, { taskQueue: stack.taskQueue, dispatch: 'relay' }));
  const [row] = await stack.admin.query<{ event_id: string; id: string }>(
    `SELECT d.event_id, d.id FROM webhook_deliveries d JOIN webhook_events e ON e.tenant_id = d.tenant_id AND e.id = d.event_id
      WHERE d.tenant_id = :tenantId AND d.endpoint_id = :endpointId AND e.type = :type ORDER BY e.occurred_at DESC LIMIT 1`,
    { replacements: { tenantId, endpointId, type: event.type }, type: QueryTypes.SELECT },
  );
  if (!row) throw new Error(`no delivery of ${event.type} to ${endpointId} was recorded`);
  return { eventId: row.event_id, deliveryId: row.id };
}

/** The delivery's workflow once the relay has started it, and its result. */
export async function deliveryResult(stack: TestStack, endpointId: string, eventId: string, timeoutMs = 60_000): Promise<DeliverWebhookResult> {
  const handle = stack.temporal.workflow.getHandle(deliverWebhookWorkflowId(endpointId, eventId));
  await until(() => handle.describe().then(() => true, () => null), 15_000, `the workflow ${DELIVER_WEBHOOK_WORKFLOW} of event ${eventId} to start`, 100);
  return Promise.race([
    handle.result() as Promise<DeliverWebhookResult>,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`delivery of ${eventId} did not settle within ${timeoutMs} ms`)), timeoutMs).unref()),
  ]);
}

export interface StoredDelivery {
  state: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  settled_at: Date | null;
}

export async function storedDelivery(stack: TestStack, tenantId: string, deliveryId: string): Promise<StoredDelivery> {
  const [row] = await stack.admin.query<StoredDelivery>(
    `SELECT state, attempt_count, last_status_code, last_error, next_attempt_at, settled_at FROM webhook_deliveries WHERE tenant_id = :tenantId AND id = :deliveryId`,
    { replacements: { tenantId, deliveryId }, type: QueryTypes.SELECT },
  );
  return row!;
}

export function storedAttempts(stack: TestStack, tenantId: string, deliveryId: string) {
  return stack.admin.query<{ attempt: number; status_code: number | null; error_class: string | null; duration_ms: number; response_excerpt: string | null }>(
    `SELECT attempt, status_code, error_class, duration_ms, response_excerpt FROM webhook_attempts
      WHERE tenant_id = :tenantId AND delivery_id = :deliveryId ORDER BY attempt`,
    { replacements: { tenantId, deliveryId }, type: QueryTypes.SELECT },
  );
}

export async function storedEndpoint(stack: TestStack, tenantId: string, endpointId: string) {
  const [row] = await stack.admin.query<{ enabled: boolean; disabled_reason: string | null; failing_since: Date | null; version: number }>(
    'SELECT enabled, disabled_reason, failing_since, version FROM webhook_endpoints WHERE tenant_id = :tenantId AND id = :endpointId',
    { replacements: { tenantId, endpointId }, type: QueryTypes.SELECT },
  );
  return row!;
}
