import type { Mailer } from '../../core/mail/mail';
import { createOutboxMailer, type OutboxStore } from './outbox';
import { createSendGridMailer } from './sendgrid';

export { createOutboxMailer, createSendGridMailer, type OutboxStore };

/** SendGrid when an API key is configured, otherwise the development outbox. */
export function createMailer(
  mail: { sendgridApiKey: string | null; sendgridApiUrl: string; sendgridTimeoutMs: number; from: string },
  outbox: OutboxStore,
): Mailer {
  return mail.sendgridApiKey
    ? createSendGridMailer({ apiKey: mail.sendgridApiKey, from: mail.from, apiUrl: mail.sendgridApiUrl, timeoutMs: mail.sendgridTimeoutMs })
    : createOutboxMailer(outbox);
}
