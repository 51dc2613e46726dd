import { MailService } from '@sendgrid/mail';
import type { Mailer } from '../../core/mail';

/** Production mail through SendGrid's API, selected by an API key in the configuration. */
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
