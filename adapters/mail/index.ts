import type { Mailer } from '../../core/mail';
import { createOutboxMailer, type OutboxStore } from './outbox';
import { createSendGridMailer } from './sendgrid';

export { createOutboxMailer, createSendGridMailer, type OutboxStore };

/** SendGrid when an API key is configured, otherwise the development outbox. */
export function createMailer(mail: { sendgridApiKey: string | null; from: string }, outbox: OutboxStore): Mailer {
  return mail.sendgridApiKey ? createSendGridMailer(mail.sendgridApiKey, mail.from) : createOutboxMailer(outbox);
}
