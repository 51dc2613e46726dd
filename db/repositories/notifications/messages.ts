import { fn } from 'sequelize';
import type { DeliveryState, MessageState } from '../../../core/notifications/push';
import { Membership, PushDelivery, PushDevice, PushMessage } from '../../models';
import { execute, selectRows, type Tx } from '../../connection';

// Devices, messages and their per-device deliveries. Serves registerDevice, removeDevice, sendNotification
// and getNotificationStatus, and sendNotificationWorkflow's activities (the push fan-out). Every function runs in the tenant's transaction
// (row-level security); only claiming a device token crosses workspaces, through the definer's function.
// Single-table reads and state changes go through the models; raw SQL, each time with its reason, for the
// rest.

/** Raw SQL: the security-definer function app_claim_push_device (a token may move from another workspace). */
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
  const removed = await PushDevice.destroy({ where: { id: deviceId, membershipId }, transaction: tx });
  return removed > 0;
}

export async function devicesOfMembership(tx: Tx, membershipId: string): Promise<string[]> {
  const rows = await PushDevice.findAll({ attributes: ['id'], where: { membershipId }, order: [['id', 'ASC']], transaction: tx });
  return rows.map((r) => r.id);
}

/** The recipient's membership state: null when it is not (or no longer) a member of this workspace. */
export async function membershipState(tx: Tx, membershipId: string): Promise<'ACTIVE' | 'SUSPENDED' | null> {
  const row = await Membership.findOne({ attributes: ['status'], where: { id: membershipId, endedAt: null }, transaction: tx });
  return row?.status ?? null;
}

export interface StoredMessage {
  id: string;
  fingerprint: Buffer;
  deviceCount: number;
}

export async function messageByRequest(tx: Tx, requestId: string): Promise<StoredMessage | null> {
  const row = await PushMessage.findOne({ attributes: ['id', 'fingerprint', 'deviceCount'], where: { requestId }, transaction: tx });
  return row ? { id: row.id, fingerprint: row.fingerprint, deviceCount: row.deviceCount } : null;
}

/**
 * Records a message and one PENDING delivery per device, unless its requestId is already taken: then
 * nothing is written and null is answered (a concurrent twin waits here for the first one's commit).
 * Raw SQL: ON CONFLICT DO NOTHING decides between concurrent twins without aborting the loser's
 * transaction, and the deliveries are one statement however many devices there are.
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

/** Raw SQL: the message with its deliveries counted per state (an aggregate). */
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
  await PushMessage.update({ status: 'SENDING' }, { where: { id, status: 'QUEUED' }, transaction: tx });
}

export interface DeliveryTarget {
  state: DeliveryState;
  title: string;
  body: string;
  clickPath: string | null;
  /** The device's token while it still belongs to the recipient; null once removed or moved. */
  token: string | null;
}

/** One delivery with what sending it needs. Raw SQL: the delivery joined with its message and device. */
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
  const [settled] = await PushDelivery.update(
    {
      state: d.state,
      providerMessageId: d.providerMessageId ?? null,
      error: d.error ? d.error.slice(0, 500) : (d.error ?? null),
      updatedAt: fn('now') as unknown as Date,
    },
    { where: { messageId: d.messageId, deviceId: d.deviceId, state: 'PENDING' }, transaction: tx },
  );
  return settled > 0;
}

export async function deleteDevice(tx: Tx, deviceId: string): Promise<void> {
  await PushDevice.destroy({ where: { id: deviceId }, transaction: tx });
}

/** Settles the message from its deliveries' states. */
export async function completeMessage(tx: Tx, id: string, status: MessageState): Promise<void> {
  await PushMessage.update({ status, completedAt: fn('now') as unknown as Date }, { where: { id, status: ['QUEUED', 'SENDING'] }, transaction: tx });
}
