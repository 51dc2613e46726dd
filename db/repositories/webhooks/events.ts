import { randomUUID } from 'node:crypto';
import { selectBatch, selectRows, type Statement, type Tx } from '../../connection';
import { DELIVER_WEBHOOK_WORKFLOW, type WebhookEventType } from '../../../contracts/webhooks';

// Webhook events, recorded in the commit of the change that causes them, with one delivery per endpoint
// that takes them and the start of each delivery's workflow in the start outbox (workflow_starts). Serves
// every operation and activity that produces an event: postJournalEntry and reverseJournalEntry (folded into
// the posting's batch), updateUser, removeUser, acceptInvitationWorkflow, closePeriodWorkflow,
// refreshRatesWorkflow (every workspace with a subscriber), and sendWebhookTestEvent (one endpoint).
//
// Raw SQL, one statement per event: the subscribed endpoints, the event, its deliveries and their starts
// are one INSERT chain, so recording costs one round trip (none extra on the posting path), and a workspace
// without a subscriber writes nothing (the event row exists only with a delivery). The workflow id is
// spelled here as contracts/workflow-ids.ts deliverWebhookWorkflowId spells it (webhook-<endpointId>-<eventId>);
// the tests compare the two. webhook_events.payload holds the event's `data`; the body sent is the envelope
// built from the row (type, occurred_at, tenant_id, payload).

export interface WebhookEvent {
  type: WebhookEventType;
  data: Record<string, unknown>;
}

export interface RecordOptions {
  /** The worker's task queue, where deliverWebhookWorkflow runs. */
  taskQueue: string;
  /**
   * 'caller': the caller dispatches the returned starts right after its commit (the relay steps in after
   * ten seconds if it cannot). 'relay': nobody dispatches them, so they are due at once for the start relay
   * (an activity has no workflow client).
   */
  dispatch: 'caller' | 'relay';
}

/** A recorded delivery's start (to dispatch after commit) and the delivery it starts. */
export interface RecordedStart {
  startId: string;
  deliveryId: string;
}

type Target = { subscribersOf: WebhookEventType } | { endpointId: string };

/** An endpoint of the workspace that takes deliveries. */
const LIVE_ENDPOINT = 'tenant_id = :tenantId AND deleted_at IS NULL AND enabled';

/**
 * Whether a live endpoint of the workspace subscribes to `type` (one row, `subscribed`): read at a
 * transaction's start, it lets a writer leave the event statement out when nobody would receive it. The
 * event's subscribers are then those of the transaction's first statement.
 */
export function subscribedStatement(scope: { tenantId: string }, type: WebhookEventType): Statement {
  return {
    sql: `SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE ${LIVE_ENDPOINT} AND :type = ANY(event_types)) AS subscribed`,
    replacements: { tenantId: scope.tenantId, type },
  };
}

/**
 * The INSERT chain of one event: `source` is a SELECT of at most one row with a jsonb column `data` (no
 * row: no event). Its one result row holds the starts it recorded (read it with recordedStartsOf).
 */
function eventChain(scope: { tenantId: string }, type: WebhookEventType, target: Target, source: Statement, options: RecordOptions): Statement {
  const relay = options.dispatch === 'relay';
  return {
    sql: `WITH endpoints AS (
       SELECT id FROM webhook_endpoints
        WHERE ${LIVE_ENDPOINT} AND ${'endpointId' in target ? 'id = :endpointId' : ':type = ANY(event_types)'}
     ), source AS (
       ${source.sql}
     ), event AS (
       INSERT INTO webhook_events (tenant_id, id, type, payload)
       SELECT :tenantId, :eventId, :type, source.data FROM source WHERE EXISTS (SELECT 1 FROM endpoints)
       RETURNING id
     ), deliveries AS (
       INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id)
       SELECT :tenantId, gen_random_uuid(), endpoints.id, event.id FROM endpoints CROSS JOIN event
       RETURNING id, endpoint_id, event_id
     ), starts AS (
       INSERT INTO workflow_starts (id, workflow_id, workflow_type, task_queue, args, tenant_attribute, id_reuse_policy${relay ? ', next_attempt_at' : ''})
       SELECT gen_random_uuid(), 'webhook-' || d.endpoint_id || '-' || d.event_id, :workflowType, :taskQueue,
              jsonb_build_array(jsonb_build_object('tenantId', CAST(:tenantId AS text), 'endpointId', d.endpoint_id, 'eventId', d.event_id, 'deliveryId', d.id)),
              :tenantId, 'REJECT_DUPLICATE'${relay ? ', now()' : ''}
         FROM deliveries d
       RETURNING id, args -> 0 ->> 'deliveryId' AS delivery_id
     )
     SELECT coalesce(json_agg(json_build_object('startId', id, 'deliveryId', delivery_id)), '[]') AS started FROM starts`,
    replacements: {
      ...source.replacements,
      tenantId: scope.tenantId,
      eventId: randomUUID(),
      type,
      endpointId: 'endpointId' in target ? target.endpointId : null,
      workflowType: DELIVER_WEBHOOK_WORKFLOW,
      taskQueue: options.taskQueue,
    },
  };
}

const givenData = (data: Record<string, unknown>): Statement => ({ sql: 'SELECT CAST(:data AS jsonb) AS data', replacements: { data: JSON.stringify(data) } });

/** The starts an event statement recorded, from its one result row. */
export function recordedStartsOf(row: Record<string, unknown>): RecordedStart[] {
  return (row as { started: RecordedStart[] }).started;
}

async function recordChain(tx: Tx, statement: Statement): Promise<RecordedStart[]> {
  const [row] = await selectRows<Record<string, unknown>>(tx, statement.sql, statement.replacements);
  return recordedStartsOf(row!);
}

/**
 * Records `event` for the workspace's live, enabled endpoints subscribed to its type, in the caller's
 * transaction (tenant set); nothing when there is none. Returns the starts to dispatch after commit.
 */
export function recordWebhookEvent(tx: Tx, scope: { tenantId: string }, event: WebhookEvent, options: RecordOptions): Promise<RecordedStart[]> {
  return recordChain(tx, webhookEventStatement(scope, event, options));
}

/** recordWebhookEvent as a statement for the caller's batch: one result row (recordedStartsOf). */
export function webhookEventStatement(scope: { tenantId: string }, event: WebhookEvent, options: RecordOptions): Statement {
  return eventChain(scope, event.type, { subscribersOf: event.type }, givenData(event.data), options);
}

/**
 * The journal entry `entryId` as a `journal-entry.posted`, `journal-entry.reversed` or `revaluation.posted` event, as a statement
 * for the posting's own batch: its data is read from the entry the batch has just inserted (its number is
 * the batch's), so an entry the cut-off refused makes no event. One result row (recordedStartsOf).
 */
export function journalEntryEventStatement(
  scope: { tenantId: string },
  event: { type: 'journal-entry.posted' | 'journal-entry.reversed' | 'revaluation.posted' | 'depreciation.posted'; entryId: string },
  options: RecordOptions,
): Statement {
  const source: Statement = {
    sql: `SELECT jsonb_build_object('entryId', e.id, 'legalEntityId', e.legal_entity_id, 'number', e.number,
                  'entryDate', to_char(e.entry_date, 'YYYY-MM-DD'), 'totalDebit', CAST(e.total_debit AS text),
                  'totalCredit', CAST(e.total_credit AS text), 'lineCount', e.line_count, 'reversalOf', e.reversal_of) AS data
         FROM journal_entries e WHERE e.tenant_id = :tenantId AND e.id = :entryId`,
    replacements: { entryId: event.entryId },
  };
  return eventChain(scope, event.type, { subscribersOf: event.type }, source, options);
}

/**
 * A `webhook.test` event with one delivery to `endpointId` (live and enabled), whatever it subscribes to.
 * Null when the endpoint takes no deliveries (deleted or disabled).
 */
export async function recordWebhookTestEvent(
  tx: Tx,
  scope: { tenantId: string },
  endpointId: string,
  data: Record<string, unknown>,
  options: RecordOptions,
): Promise<{ eventId: string; start: RecordedStart } | null> {
  const statement = eventChain(scope, 'webhook.test', { endpointId }, givenData(data), options);
  const [start] = await recordChain(tx, statement);
  return start ? { eventId: statement.replacements!.eventId as string, start } : null;
}

/**
 * Records `event` once in every workspace with a live endpoint subscribed to it (rates are global: the
 * caller's transaction has no tenant). The workspaces are found by the definer's function
 * app_webhook_subscriber_tenants, which answers ids only; each workspace's event is then written with that
 * workspace set as the transaction's tenant, so row-level security checks every row as for a request.
 * One round trip per workspace (its tenant setting and its event chain in one batch).
 */
export async function recordWebhookEventForEverySubscriber(tx: Tx, event: WebhookEvent, options: RecordOptions): Promise<number> {
  const tenants = await selectRows<{ tenant_id: string }>(tx, 'SELECT app_webhook_subscriber_tenants(:type) AS tenant_id', { type: event.type });
  let recorded = 0;
  for (const { tenant_id: tenantId } of tenants) {
    const rows = await selectBatch<Record<string, unknown>>(tx, [
      { sql: "SELECT set_config('app.tenant_id', :tenantId, true)", replacements: { tenantId } },
      eventChain({ tenantId }, event.type, { subscribersOf: event.type }, givenData(event.data), options),
    ]);
    recorded += recordedStartsOf(rows[rows.length - 1]!).length;
  }
  if (tenants.length > 0) await selectRows(tx, "SELECT set_config('app.tenant_id', '', true)");
  return recorded;
}
