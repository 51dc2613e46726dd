// The mail port. Adapters (adapters/mail) implement it: SendGrid in production, a development outbox
// otherwise. Nothing here knows how mail leaves the process.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly kind: 'sendgrid' | 'outbox';
  send(message: MailMessage): Promise<void>;
}
