import { Client } from '@sendgrid/client';
import { MailService } from '@sendgrid/mail';
import { MailRejectedError, type Mailer } from '../../core/mail/mail';

export interface SendGridOptions {
  apiKey: string;
  from: string;
  /** SendGrid's API origin; a local fake in tests. */
  apiUrl: string;
  timeoutMs: number;
}

interface SendGridFailure {
  code?: number | string;
  message?: string;
  response?: { body?: { errors?: Array<{ message?: string; field?: string | null }> } };
}

/** A refusal SendGrid will repeat for the same request (4xx but 408 and 429) is permanent; the rest is transient. */
function classify(err: unknown): Error {
  const failure = err as SendGridFailure;
  const status = typeof failure.code === 'number' ? failure.code : null;
  const errors = failure.response?.body?.errors ?? [];
  const reason = errors.map((e) => [e.field, e.message].filter(Boolean).join(': ')).join('; ').slice(0, 300);
  if (status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new MailRejectedError(status, `SendGrid refused the message (${status})${reason ? `: ${reason}` : ''}`);
  }
  const what = status !== null ? `SendGrid answered ${status}` : `SendGrid unreachable (${failure.code ?? failure.message ?? 'unknown'})`;
  return new Error(what);
}

/** Production mail through SendGrid's v3 API, selected by an API key in the configuration. */
export function createSendGridMailer(options: SendGridOptions): Mailer {
  const client = new Client();
  client.setApiKey(options.apiKey);
  client.setDefaultRequest('baseUrl', options.apiUrl);
  const service = new MailService();
  service.setClient(client);
  service.setTimeout(options.timeoutMs);
  return {
    kind: 'sendgrid',
    async send(message) {
      try {
        const [response] = await service.send({
          to: message.to,
          from: options.from,
          subject: message.subject,
          text: message.text,
          // Real delivery, always: a sandboxed send would be accepted and never arrive.
          mailSettings: { sandboxMode: { enable: false } },
          // Links carry one-time tokens: SendGrid must not rewrite them for click tracking.
          trackingSettings: { clickTracking: { enable: false, enableText: false } },
        });
        const id = response.headers['x-message-id'];
        return { messageId: typeof id === 'string' && id.length > 0 ? id : null };
      } catch (err) {
        throw classify(err);
      }
    },
  };
}
