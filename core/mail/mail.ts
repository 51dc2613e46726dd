// The mail port. Adapters (adapters/mail) implement it: SendGrid in production, a development outbox
// otherwise. Nothing here knows how mail leaves the process.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface SentMail {
  /** The provider's id of the accepted message (SendGrid's X-Message-Id); its events carry it. */
  messageId: string | null;
}

export interface Mailer {
  readonly kind: 'sendgrid' | 'outbox';
  /**
   * Hands the message to the provider. Throws MailRejectedError when the provider refuses it for good
   * (a retry cannot help); any other error is transient.
   */
  send(message: MailMessage): Promise<SentMail>;
}

/** The provider refused the message (a 4xx other than 408/429): retrying the same request cannot help. */
export class MailRejectedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'MailRejectedError';
  }
}

/** Which flow of the service sent a mail. */
export type MailPurpose = 'REGISTRATION' | 'INVITATION' | 'EMAIL_CODE' | 'PASSWORD_RESET' | 'WEBHOOK_DISABLED';

/** Where a mail stands: set when it is sent, then moved by the provider's events (never backwards). */
export type MailState = 'SENDING' | 'SENT' | 'PROCESSED' | 'DEFERRED' | 'DELIVERED' | 'BOUNCED' | 'DROPPED' | 'SPAM_REPORTED' | 'FAILED';

/** The SendGrid event webhook's delivery events and the state each one means; other events are ignored. */
export const SENDGRID_EVENT_STATES: Readonly<Record<string, MailState>> = {
  processed: 'PROCESSED',
  deferred: 'DEFERRED',
  delivered: 'DELIVERED',
  bounce: 'BOUNCED',
  dropped: 'DROPPED',
  spamreport: 'SPAM_REPORTED',
};

/** What `GET /me/email-status` answers for an address, from the mails sent to it. */
export interface EmailStatus {
  delivery: MailState | 'NONE';
  flow: MailPurpose | 'NONE';
  mailbox: 'REACHABLE' | 'UNREACHABLE' | 'UNVERIFIED';
  observedAt: Date;
}

const SETTLED_REACHABLE: ReadonlySet<MailState> = new Set(['DELIVERED']);
const SETTLED_UNREACHABLE: ReadonlySet<MailState> = new Set(['BOUNCED', 'DROPPED', 'SPAM_REPORTED']);

/**
 * `latest`: the newest mail to the address; `settled`: the newest one whose state says something about
 * the mailbox (delivered, bounced, dropped, reported as spam). A refusal by the provider (FAILED) says
 * nothing about the mailbox and is not counted.
 */
export function emailStatus(
  latest: { state: MailState; purpose: MailPurpose; stateAt: Date } | null,
  settled: MailState | null,
  now: Date,
): EmailStatus {
  const mailbox = settled && SETTLED_REACHABLE.has(settled) ? 'REACHABLE' : settled && SETTLED_UNREACHABLE.has(settled) ? 'UNREACHABLE' : 'UNVERIFIED';
  if (!latest) return { delivery: 'NONE', flow: 'NONE', mailbox, observedAt: now };
  return { delivery: latest.state, flow: latest.purpose, mailbox, observedAt: latest.stateAt };
}
