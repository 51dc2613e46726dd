import type { Mailer, MailMessage } from '../../core/mail';

/** Where the development outbox keeps what it "sent" (a table, read back by GET /dev/mail). */
export interface OutboxStore {
  store(message: MailMessage): Promise<void>;
}

/** Development mail: nothing leaves the machine; every message lands in the outbox store. */
export function createOutboxMailer(outbox: OutboxStore): Mailer {
  return {
    kind: 'outbox',
    send: (message) => outbox.store(message),
  };
}
