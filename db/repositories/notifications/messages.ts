import type { DeliveryState, MessageState } from '../../../core/push';
import { execute, selectRows, type Tx } from '../../connection';

// Devices, messages and their per-device deliveries. Serves registerDevice, removeDevice, sendNotification
// and getNotificationStatus, and sendNotificationWorkflow's activities (the push fan-out). Every function runs in the tenant's transaction
// (row-level security); only claiming a device token crosses workspaces, through the definer's function.

export async function claimDevice(tx: Tx, d: { tenantId: string; membershipId: string; token: string; tokenHash: Buffer; platform: string }): Promise<string> {
  const [row] = await selectRows<{ id: string }>(
    tx,
    'SELECT app_claim_push_device(:tenantId, :membershipId, :token, :tokenHash, :platform) AS id',
    d,
  );
  return row!.id;
}

/** Removes one of the membership's devices; false when it has no such device. */
export async function removeDevice(tx: Tx, membershipId: string, deviceId: string): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(tx, 'DELETE FROM push_devices WHERE id = :deviceId AND membership_id = :membershipId RETURNING id', {
    deviceId,
    membershipId,
  });
  return rows.length > 0;
}

export async function devicesOfMembership(tx: Tx, membershipId: string): Promise<string[]> {
  const rows = await selectRows<{ id: string }>(tx, 'SELECT id FROM push_devices WHERE membership_id = :membershipId ORDER BY id', { membershipId });
  return rows.map((r) => r.id);
}

/** The recipient's membership state: null when it is not (or no longer) a member of this workspace. */
export async function membershipState(tx: Tx, membershipId: string): Promise<'ACTIVE' | 'SUSPENDED' | null> {
  const [row] = await selectRows<{ status: 'ACTIVE' | 'SUSPENDED' }>(
    tx,
    'SELECT status FROM memberships WHERE id = :membershipId AND ended_at IS NULL',
    { membershipId },
  );
  return row?.status ?? null;
}

export interface StoredMessage {
  id: string;
  fingerprint: Buffer;
  deviceCount: number;
}

export async function messageByRequest(tx: Tx, requestId: string): Promise<StoredMessage | null> {
  const [row] = await selectRows<StoredMessage>(
    tx,
    'SELECT id, fingerprint, device_count AS "deviceCount" FROM push_messages WHERE request_id = :requestId',
    { requestId },
  );
  return row ?? null;
}

/**
 * Records a message and one PENDING delivery per device, unless its requestId is already taken: then
 * nothing is written and null is answered (a concurrent twin waits here for the first one's commit).
 */
export async function insertMessage(
  tx: Tx,
  m: {
    tenantId: string;
    id: string;
    requestId: string;
    fingerprint: Buffer;
    senderMembershipId: string;
    recipientMembershipId: string;
    title: string;
    body: string;
    clickPath: string | null;
    deviceIds: string[];
  },
): Promise<boolean> {
  const inserted = await selectRows<{ id: string }>(
    tx,
    `INSERT INTO push_messages (tenant_id, id, request_id, fingerprint, sender_membership_id, recipient_membership_id, title, body, click_path, device_count)
     VALUES (:tenantId, :id, :requestId, :fingerprint, :senderMembershipId, :recipientMembershipId, :title, :body, :clickPath, :deviceCount)
     ON CONFLICT (tenant_id, request_id) DO NOTHING RETURNING id`,
    { ...m, deviceCount: m.deviceIds.length },
  );
  if (inserted.length === 0) return false;
  if (m.deviceIds.length > 0) {
    await execute(
      tx,
      `INSERT INTO push_deliveries (tenant_id, message_id, device_id)
       SELECT :tenantId, :id, unnest(CAST(:deviceIds AS uuid[]))`,
      { tenantId: m.tenantId, id: m.id, deviceIds: `{${m.deviceIds.join(',')}}` },
    );
  }
  return true;
}

export interface MessageStatusRow {
  id: string;
  status: MessageState;
  counts: Partial<Record<DeliveryState, number>>;
}

export async function messageStatus(tx: Tx, id: string): Promise<MessageStatusRow | null> {
  const [row] = await selectRows<{ id: string; status: MessageState; counts: Record<string, number> | null }>(
    tx,
    `SELECT m.id, m.status,
            (SELECT jsonb_object_agg(state, n) FROM (SELECT state, count(*)::int AS n FROM push_deliveries d
                WHERE d.message_id = m.id GROUP BY state) s) AS counts
       FROM push_messages m WHERE m.id = :id`,
    { id },
  );
  return row ? { id: row.id, status: row.status, counts: row.counts ?? {} } : null;
}

/** QUEUED → SENDING, once the fan-out starts. */
export async function markSending(tx: Tx, id: string): Promise<void> {
  await execute(tx, "UPDATE push_messages SET status = 'SENDING' WHERE id = :id AND status = 'QUEUED'", { id });
}

export interface DeliveryTarget {
  state: DeliveryState;
  title: string;
  body: string;
  clickPath: string | null;
  /** The device's token while it still belongs to the recipient; null once removed or moved. */
  token: string | null;
}

/** One delivery with what sending it needs. */
export async function deliveryTarget(tx: Tx, messageId: string, deviceId: string): Promise<DeliveryTarget | null> {
  const [row] = await selectRows<DeliveryTarget>(
    tx,
    `SELECT d.state, m.title, m.body, m.click_path AS "clickPath",
            (SELECT t.token FROM push_devices t WHERE t.id = d.device_id AND t.membership_id = m.recipient_membership_id) AS token
       FROM push_deliveries d JOIN push_messages m ON m.tenant_id = d.tenant_id AND m.id = d.message_id
      WHERE d.message_id = :messageId AND d.device_id = :deviceId`,
    { messageId, deviceId },
  );
  return row ?? null;
}

/** Settles a PENDING delivery; a settled one stays as it is (false). */
export async function settleDelivery(
  tx: Tx,
  d: { messageId: string; deviceId: string; state: Exclude<DeliveryState, 'PENDING'>; providerMessageId?: string | null; error?: string | null },
): Promise<boolean> {
  const rows = await selectRows<{ device_id: string }>(
    tx,
    `UPDATE push_deliveries SET state = :state, provider_message_id = :providerMessageId, error = :error, updated_at = now()
      WHERE message_id = :messageId AND device_id = :deviceId AND state = 'PENDING' RETURNING device_id`,
    { providerMessageId: null, error: null, ...d, ...(d.error ? { error: d.error.slice(0, 500) } : {}) },
  );
  return rows.length > 0;
}

export async function deleteDevice(tx: Tx, deviceId: string): Promise<void> {
  await execute(tx, 'DELETE FROM push_devices WHERE id = :deviceId', { deviceId });
}

/** Settles the message from its deliveries' states. */
export async function completeMessage(tx: Tx, id: string, status: MessageState): Promise<void> {
  await execute(tx, "UPDATE push_messages SET status = :status, completed_at = now() WHERE id = :id AND status IN ('QUEUED', 'SENDING')", { id, status });
}
