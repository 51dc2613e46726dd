import { deviceTokenHash, type PushNotification } from '../../../core/notifications/push';
import { PushOutboxMessage } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';

// The development push adapter's outbox: what it "sent", read back by GET /dev/push (listDevelopmentPush). One row per delivery
// key (message and device) at most, so a delivery retried after a crash is recorded once.

/**
 * Records one delivery; a repeated delivery key keeps the first record. Answers the record's reference.
 * Raw SQL: ON CONFLICT … DO UPDATE answers the first record's id to a retried delivery in one statement.
 */
export async function storePushOutbox(db: Db, n: PushNotification): Promise<string> {
  const [row] = await selectRows<{ id: string }>(
    db,
    `INSERT INTO push_outbox (token_hash, delivery_key, message_id, title, body, click_path)
     VALUES (:tokenHash, :deliveryKey, :messageId, :title, :body, :clickPath)
     ON CONFLICT (delivery_key) DO UPDATE SET delivery_key = EXCLUDED.delivery_key
     RETURNING id`,
    { tokenHash: deviceTokenHash(n.token), deliveryKey: n.deliveryKey, messageId: n.messageId, title: n.title, body: n.body, clickPath: n.clickPath },
  );
  return `dev-outbox-${row!.id}`;
}

export interface DevPush {
  title: string;
  body: string;
  clickPath: string | null;
  messageId: string;
  sentAt: Date;
}

/** The newest deliveries to one device token first. */
export async function pushOutboxFor(db: Db, token: string, limit: number): Promise<DevPush[]> {
  const rows = await PushOutboxMessage.findAll({
    attributes: ['title', 'body', 'clickPath', 'messageId', 'sentAt'],
    where: { tokenHash: deviceTokenHash(token) },
    order: [['id', 'DESC']],
    limit,
    transaction: transactionOf(db),
  });
  return rows.map((r) => ({ title: r.title, body: r.body, clickPath: r.clickPath, messageId: r.messageId, sentAt: r.sentAt }));
}

/** How many times the deliveries of one message were recorded (one per device: the test of "each device exactly one message"). */
export function pushOutboxCount(db: Db, messageId: string): Promise<number> {
  return PushOutboxMessage.count({ where: { messageId }, transaction: transactionOf(db) });
}
