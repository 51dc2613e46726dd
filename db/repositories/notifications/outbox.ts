import { deviceTokenHash, type PushNotification } from '../../../core/push';
import { selectRows, type Db } from '../../connection';

// The development push adapter's outbox: what it "sent", read back by GET /dev/push (listDevelopmentPush). One row per delivery
// key (message and device) at most, so a delivery retried after a crash is recorded once.

/** Records one delivery; a repeated delivery key keeps the first record. Answers the record's reference. */
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
export function pushOutboxFor(db: Db, token: string, limit: number): Promise<DevPush[]> {
  return selectRows<DevPush>(
    db,
    `SELECT title, body, click_path AS "clickPath", message_id AS "messageId", sent_at AS "sentAt"
       FROM push_outbox WHERE token_hash = :tokenHash ORDER BY id DESC LIMIT :limit`,
    { tokenHash: deviceTokenHash(token), limit },
  );
}

/** How many times one delivery was recorded (0 or 1: the test of "each device exactly one message"). */
export async function pushOutboxCount(db: Db, messageId: string): Promise<number> {
  const rows = await selectRows<{ n: string }>(db, 'SELECT count(*) AS n FROM push_outbox WHERE message_id = :messageId', { messageId });
  return Number(rows[0]?.n ?? 0);
}
