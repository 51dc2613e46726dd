import { MailService } from '@sendgrid/mail';
import { MailOutboxMessage } from '../db/models';

// One port, two adapters: SendGrid when an API key is configured, otherwise a development outbox
// table that GET /dev/mail reads.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly kind: 'sendgrid' | 'outbox';
  send(message: MailMessage): Promise<void>;
}

export function createSendGridMailer(apiKey: string, from: string): Mailer {
  const client = new MailService();
  client.setApiKey(apiKey);
  return {
    kind: 'sendgrid',
    async send(message) {
      await client.send({ to: message.to, from, subject: message.subject, text: message.text });
    },
  };
}

export function createOutboxMailer(): Mailer {
  return {
    kind: 'outbox',
    async send(message) {
      await MailOutboxMessage.create({ toAddress: message.to, subject: message.subject, text: message.text });
    },
  };
}

export function createMailer(mail: { sendgridApiKey: string | null; from: string }): Mailer {
  return mail.sendgridApiKey ? createSendGridMailer(mail.sendgridApiKey, mail.from) : createOutboxMailer();
}
