// Outbound webhooks: the sender port, the signed request of one attempt (Standard Webhooks) and the retry
// schedule. The adapter (adapters/webhooks) resolves and checks the receiver's address and makes the call;
// nothing here knows how a request leaves the process.
import { Webhook } from 'standardwebhooks';

/** Why an attempt did not deliver, as recorded in webhook_attempts.error_class. */
export type WebhookErrorClass =
  /** The receiver answered outside 2xx. */
  | 'HTTP_STATUS'
  /** The receiver answered 3xx: redirects are never followed. */
  | 'REDIRECT'
  /** No complete answer within the attempt's deadline (name resolution, connection, request and answer together). */
  | 'TIMEOUT'
  /** The host resolved to an address that is not public (loopback, private, link-local, multicast, …). */
  | 'ADDRESS_REFUSED'
  /** A plain http URL where https is required. */
  | 'HTTPS_REQUIRED'
  /** The endpoint's URL cannot be parsed or has no host. */
  | 'INVALID_URL'
  /** The host name does not resolve. */
  | 'DNS'
  | 'CONNECTION_REFUSED'
  /** The certificate or the TLS handshake was refused. */
  | 'TLS'
  /** The connection broke off before a whole answer came. */
  | 'CONNECTION';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResponse {
  /** The receiver's status code; null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** Null when the answer was 2xx. */
  errorClass: WebhookErrorClass | null;
  /** The first characters of the answer's body (at most EXCERPT_CHARS, control characters replaced); null without an answer. */
  excerpt: string | null;
}

export interface WebhookSender {
  /** POSTs once; every failure is an answer with its error class, never a throw. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** How much of an answer's body is read at most; the rest is discarded unread. */
export const RESPONSE_READ_BYTES = 4096;
/** How much of it is kept with the attempt. */
export const EXCERPT_CHARS = 256;

/** The stored excerpt: the first EXCERPT_CHARS characters, control characters (U+0000 included) replaced. */
export function responseExcerpt(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.slice(0, EXCERPT_CHARS).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd');
}

/** What is POSTed: the event's envelope, the same bytes on every attempt. */
export function webhookBody(event: { type: string; occurredAt: Date; tenantId: string; data: unknown }): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), tenantId: event.tenantId, data: event.data });
}

/**
 * The headers of one attempt (Standard Webhooks): `webhook-id` is the event's id, the same on every attempt;
 * `webhook-timestamp` is this attempt's time; `webhook-signature` holds one `v1,<signature>` per live
 * secret (the current one first, then the previous one during its overlap after a rotation), space-separated.
 */
export function signedHeaders(input: { eventId: string; timestamp: Date; body: string; secrets: string[] }): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('a webhook is signed with at least one secret');
  const signatures = input.secrets.map((secret) => new Webhook(secret).sign(input.eventId, input.timestamp, input.body));
  return {
    'content-type': 'application/json',
    'user-agent': 'accounting-backend-webhooks/1',
    'webhook-id': input.eventId,
    'webhook-timestamp': String(Math.floor(input.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/** The waits after failed attempts 1, 2, 3, …; the last one repeats until the retry window ends. */
export const DEFAULT_RETRY_INTERVALS_MS = [10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];

export interface RetrySchedule {
  intervalsMs: readonly number[];
  /** How long after a run's first attempt attempts go on (WEBHOOK_RETRY_HOURS). */
  windowMs: number;
}

/**
 * How long to wait after failed attempt `attempt` (1 for the run's first) made `elapsedMs` after the run's
 * first attempt, or null when the window has ended and the delivery is FAILED. The last wait is shortened
 * so that one attempt falls on the window's end: a delivery is tried for the whole window, never less.
 */
export function retryDelayMs(attempt: number, elapsedMs: number, schedule: RetrySchedule): number | null {
  const left = schedule.windowMs - elapsedMs;
  if (left <= 0) return null;
  const intervals = schedule.intervalsMs;
  const interval = intervals[Math.min(attempt, intervals.length) - 1] ?? intervals[intervals.length - 1] ?? left;
  return Math.min(interval, left);
}

/** A failed attempt in words, for the delivery's last_error (never the answer's body). */
export function attemptError(response: WebhookResponse, timeoutMs: number): string {
  switch (response.errorClass) {
    case null:
      return 'delivered';
    case 'HTTP_STATUS':
      return `the receiver answered HTTP ${response.statusCode}`;
    case 'REDIRECT':
      return `the receiver answered HTTP ${response.statusCode}, a redirect (redirects are not followed)`;
    case 'TIMEOUT':
      return `no complete answer within ${timeoutMs} ms`;
    case 'ADDRESS_REFUSED':
      return 'the host resolves to an address that is not public (loopback, private, link-local, multicast or reserved)';
    case 'HTTPS_REQUIRED':
      return 'the URL is plain http; this service sends to https URLs only';
    case 'INVALID_URL':
      return 'the URL is not an http(s) URL';
    case 'DNS':
      return 'the host name does not resolve';
    case 'CONNECTION_REFUSED':
      return 'the receiver refused the connection';
    case 'TLS':
      return 'the TLS handshake failed (the certificate was not accepted)';
    case 'CONNECTION':
      return 'the connection broke off before a whole answer came';
  }
}
