import { randomBytes } from 'node:crypto';
import type { Mailer, MailMessage } from '../../core/mail/mail';

/** Where the development outbox keeps what it "sent" (a table, read back by GET /dev/mail). */
export interface OutboxStore {
  store(message: MailMessage & { messageId: string }): Promise<void>;
}

/**
 * Development mail: nothing leaves the machine; every message lands in the outbox store under a message
 * id shaped like SendGrid's, so a provider event can be replayed against it by hand.
 */
export function createOutboxMailer(outbox: OutboxStore): Mailer {
  return {
    kind: 'outbox',
    async send(message) {
      const messageId = randomBytes(16).toString('base64url');
      await outbox.store({ ...message, messageId });
      return { messageId };
    },
  };
}
