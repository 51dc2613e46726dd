import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { execute, selectBatch, selectRows, withTenant, type Db, type Statement, type Tx } from '../../connection';

// The attempts of a webhook delivery and their settlement. Serves deliverWebhookWorkflow's activities
// (activities/webhooks/deliver-webhook.ts). Raw SQL throughout: the delivery is read joined with its
// endpoint and event; an endpoint slot is a lease taken with FOR UPDATE SKIP LOCKED; an attempt is recorded
// by one INSERT chain that counts it on the delivery; the settlement and the disabling are conditional
// writes that decide a race (only a PENDING delivery settles, only one settlement disables); and each
// step's statements travel in one round trip with the transaction's opening.

type Scope = { tenantId: string };

export interface DeliveryIds {
  endpointId: string;
  deliveryId: string;
}

/** What one attempt needs: the delivery's state, its endpoint and its event. Sealed secrets stay sealed here. */
export interface DeliveryTarget {
  state: 'PENDING' | 'DELIVERED' | 'FAILED';
  /** The endpoint takes deliveries (enabled, not deleted). */
  live: boolean;
  url: string;
  secretSealed: string;
  /** The previous secret while it still signs after a rotation; null otherwise. */
  previousSecretSealed: string | null;
  eventId: string;
  eventType: string;
  payload: unknown;
  occurredAt: Date;
}

/** A leased endpoint slot (one attempt in flight), given back when the attempt is recorded. */
export interface SlotLease {
  leaseId: string;
}

const targetStatement = (scope: Scope, ids: DeliveryIds): Statement => ({
  sql: `SELECT d.state, (e.enabled AND e.deleted_at IS NULL) AS live, e.url, e.secret_sealed AS "secretSealed",
               CASE WHEN e.previous_secret_until > now() THEN e.previous_secret_sealed END AS "previousSecretSealed",
               ev.id AS "eventId", ev.type AS "eventType", ev.payload, ev.occurred_at AS "occurredAt"
          FROM webhook_deliveries d
          JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
          JOIN webhook_events ev ON ev.tenant_id = d.tenant_id AND ev.id = d.event_id
         WHERE d.tenant_id = :tenantId AND d.id = :deliveryId AND d.endpoint_id = :endpointId`,
  replacements: { ...scope, ...ids },
});

/** The delivery is PENDING and its endpoint live: the condition of taking a slot. */
const SENDABLE = `EXISTS (SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
                           WHERE d.tenant_id = :tenantId AND d.id = :deliveryId AND d.endpoint_id = :endpointId
                             AND d.state = 'PENDING' AND e.enabled AND e.deleted_at IS NULL)`;

/**
 * Reads the delivery and, when it is sendable, leases a free slot of its endpoint (slots 0..slots-1, made
 * on first use; a lease ends by itself after `leaseMs`, so a dead worker's slot comes back). One round trip
 * with the transaction's opening, then COMMIT. Null target: no such delivery of this endpoint. Null lease:
 * nothing to send, or every slot is taken (BUSY).
 */
export async function openAttempt(
  db: Sequelize,
  scope: Scope,
  ids: DeliveryIds,
  limits: { slots: number; leaseMs: number },
): Promise<{ target: DeliveryTarget | null; lease: SlotLease | null }> {
  const leaseId = randomUUID();
  const replacements = { ...scope, ...ids, slots: limits.slots, leaseMs: limits.leaseMs, leaseId };
  return withTenant(
    db,
    scope.tenantId,
    async (_tx, [targets, , taken]) => ({
      target: (targets?.[0] as unknown as DeliveryTarget | undefined) ?? null,
      lease: taken && taken.length > 0 ? { leaseId } : null,
    }),
    [
      targetStatement(scope, ids),
      {
        sql: `INSERT INTO webhook_endpoint_slots (tenant_id, endpoint_id, slot)
              SELECT :tenantId, :endpointId, s.slot FROM generate_series(0, :slots - 1) AS s(slot) WHERE ${SENDABLE}
              ON CONFLICT DO NOTHING`,
        replacements,
      },
      {
        sql: `UPDATE webhook_endpoint_slots SET lease_id = :leaseId, held_until = now() + make_interval(secs => :leaseMs / 1000.0)
               WHERE (tenant_id, endpoint_id, slot) = (
                 SELECT s.tenant_id, s.endpoint_id, s.slot FROM webhook_endpoint_slots s
                  WHERE s.tenant_id = :tenantId AND s.endpoint_id = :endpointId AND s.slot < :slots
                    AND (s.held_until IS NULL OR s.held_until < now()) AND ${SENDABLE}
                  ORDER BY s.slot LIMIT 1 FOR UPDATE SKIP LOCKED)
              RETURNING slot`,
        replacements,
      },
    ],
  );
}

const releaseStatement = (scope: Scope, endpointId: string, lease: SlotLease): Statement => ({
  sql: `UPDATE webhook_endpoint_slots SET lease_id = NULL, held_until = NULL
         WHERE tenant_id = :tenantId AND endpoint_id = :endpointId AND lease_id = :leaseId`,
  replacements: { ...scope, endpointId, leaseId: lease.leaseId },
});

/** Gives a slot back without recording an attempt (the attempt could not be made). */
export async function releaseSlot(db: Sequelize, scope: Scope, endpointId: string, lease: SlotLease): Promise<void> {
  await withTenant(db, scope.tenantId, async () => undefined, [releaseStatement(scope, endpointId, lease)]);
}

export interface AttemptRecord {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  /** Null for a delivered attempt. */
  errorClass: string | null;
  excerpt: string | null;
  /** The delivery's last_error after this attempt (null when delivered). */
  lastError: string | null;
  /** When the next attempt is due; null when there is none (delivered, or the window has ended). */
  nextAttemptAt: Date | null;
}

/**
 * Records one attempt and gives its slot back, in one round trip with the transaction's opening: the
 * attempt numbered after the delivery's count, the delivery's count, last status, last error and next
 * attempt, DELIVERED when it was (the same commit, so a delivered attempt is never sent again), and the
 * endpoint's failure state (failing_since set at the first failure after a success, cleared by a success).
 * Returns the attempt's number.
 */
export async function recordAttempt(db: Sequelize, scope: Scope, ids: DeliveryIds, lease: SlotLease, attempt: AttemptRecord): Promise<number> {
  const delivered = attempt.errorClass === null;
  return withTenant(
    db,
    scope.tenantId,
    async (_tx, [recorded]) => Number((recorded?.[0] as { attempt: number } | undefined)?.attempt ?? 0),
    [
      {
        sql: `WITH counted AS (
                UPDATE webhook_deliveries
                   SET attempt_count = attempt_count + 1, last_status_code = :statusCode, last_error = left(:lastError, 500),
                       next_attempt_at = :nextAttemptAt,
                       state = CASE WHEN :delivered THEN 'DELIVERED' ELSE state END,
                       settled_at = CASE WHEN :delivered THEN now() ELSE settled_at END
                 WHERE tenant_id = :tenantId AND id = :deliveryId AND endpoint_id = :endpointId
                RETURNING attempt_count)
              INSERT INTO webhook_attempts (tenant_id, delivery_id, attempt, started_at, duration_ms, status_code, error_class, response_excerpt)
              SELECT :tenantId, :deliveryId, attempt_count, CAST(:startedAt AS timestamptz), CAST(:durationMs AS integer),
                     CAST(:statusCode AS integer), CAST(:errorClass AS text), CAST(:excerpt AS text)
                FROM counted
              RETURNING attempt`,
        replacements: { ...scope, ...ids, ...attempt, delivered },
      },
      {
        sql: delivered
          ? `UPDATE webhook_endpoints SET failing_since = NULL WHERE tenant_id = :tenantId AND id = :endpointId AND failing_since IS NOT NULL`
          : `UPDATE webhook_endpoints SET failing_since = now() WHERE tenant_id = :tenantId AND id = :endpointId AND failing_since IS NULL`,
        replacements: { ...scope, endpointId: ids.endpointId },
      },
      releaseStatement(scope, ids.endpointId, lease),
    ],
  );
}

/** Settles a PENDING delivery FAILED with its reason, no attempt due (its endpoint was deleted or disabled). */
export async function settleDeliveryFailed(tx: Tx, scope: Scope, ids: DeliveryIds, reason: string): Promise<void> {
  await execute(
    tx,
    `UPDATE webhook_deliveries SET state = 'FAILED', settled_at = now(), next_attempt_at = NULL, last_error = left(:reason, 500)
      WHERE tenant_id = :tenantId AND id = :deliveryId AND endpoint_id = :endpointId AND state = 'PENDING'`,
    { ...scope, ...ids, reason },
  );
}

/**
 * Settles a PENDING delivery FAILED after its retry window (its last attempt's error stays its last_error)
 * and, when its endpoint has failed since `afterDays` ago or longer, disables the endpoint with `reason` (a
 * new version, as any change of the endpoint). One round trip; only the settlement that disables the
 * endpoint answers true, so its ADMINs are mailed once.
 */
export async function failDelivery(tx: Tx, scope: Scope, ids: DeliveryIds, disable: { afterDays: number; reason: string }): Promise<{ endpointDisabled: boolean }> {
  const disabled = await selectBatch<{ id: string }>(tx, [
    {
      sql: `UPDATE webhook_deliveries SET state = 'FAILED', settled_at = now(), next_attempt_at = NULL
             WHERE tenant_id = :tenantId AND id = :deliveryId AND endpoint_id = :endpointId AND state = 'PENDING'`,
      replacements: { ...scope, ...ids },
    },
    {
      sql: `UPDATE webhook_endpoints SET enabled = false, disabled_reason = left(:reason, 500), version = version + 1, updated_at = now()
             WHERE tenant_id = :tenantId AND id = :endpointId AND enabled AND deleted_at IS NULL
               AND failing_since <= now() - make_interval(days => :afterDays)
            RETURNING id`,
      replacements: { ...scope, endpointId: ids.endpointId, reason: disable.reason, afterDays: disable.afterDays },
    },
  ]);
  return { endpointDisabled: disabled.length > 0 };
}

/** An endpoint the service disabled, for the mail to its ADMINs; null when it is enabled again or deleted. */
export async function disabledEndpoint(
  tx: Db,
  scope: Scope,
  endpointId: string,
): Promise<{ url: string; description: string | null; disabledReason: string; failingSince: Date | null; version: number } | null> {
  const [row] = await selectRows<{ url: string; description: string | null; disabledReason: string; failingSince: Date | null; version: number }>(
    tx,
    `SELECT url, description, disabled_reason AS "disabledReason", failing_since AS "failingSince", version
       FROM webhook_endpoints
      WHERE tenant_id = :tenantId AND id = :endpointId AND NOT enabled AND deleted_at IS NULL AND disabled_reason IS NOT NULL`,
    { ...scope, endpointId },
  );
  return row ?? null;
}
