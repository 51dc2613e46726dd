import type { PushNotification, PushResult, PushSender } from '../../core/notifications/push';

/** Where the development adapter keeps what it "sent" (a table, read back by GET /dev/push). */
export interface PushOutboxStore {
  /** Records one delivery once (a repeated delivery key keeps the first record); answers its reference. */
  store(notification: PushNotification): Promise<string>;
}

/** Development push: nothing leaves the machine; every delivery lands in the outbox store, once. */
export function createDevelopmentPushSender(outbox: PushOutboxStore): PushSender {
  return {
    kind: 'development',
    async send(notification: PushNotification): Promise<PushResult> {
      return { outcome: 'SENT', providerMessageId: await outbox.store(notification) };
    },
  };
}
