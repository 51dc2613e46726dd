// The webhooks' contracts: deliverWebhookWorkflow (workflow webhook-<endpointId>-<eventId>, one per delivery
// of one event to one endpoint, started from the change's own commit through the start outbox by every
// operation that produces an event, and by sendWebhookTestEvent and retryWebhookDelivery) and its
// activities. Inputs carry ids only: the endpoint's secret and the payload stay in PostgreSQL.

export const DELIVER_WEBHOOK_WORKFLOW = 'deliverWebhookWorkflow';

/** The event types an endpoint subscribes to (a payload schema per type is in the OpenAPI document). */
export const WEBHOOK_EVENT_TYPES = [
  'journal-entry.posted',
  'journal-entry.reversed',
  'period-close.completed',
  'period-close.failed',
  'revaluation.posted',
  'member.joined',
  'member.removed',
  'member.updated',
  'rates.refreshed',
  'webhook.test',
  'invoice.posted',
  'invoice.cancelled',
  'payment.posted',
  'payment.cancelled',
  'bank-statement.imported',
  'depreciation.posted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface DeliverWebhookInput {
  tenantId: string;
  endpointId: string;
  eventId: string;
  deliveryId: string;
}

export type DeliverWebhookResult =
  | { state: 'DELIVERED'; attempts: number }
  | { state: 'FAILED'; attempts: number; reason: string }
  /** The endpoint was deleted or disabled before the delivery went out, or the delivery was settled already. */
  | { state: 'SKIPPED'; reason: string };
/** Where a run stands, carried into its continuation when its history grows long (continue-as-new). */
export interface DeliverWebhookProgress {
  /** Attempts made so far in this run (BUSY answers do not count). */
  attempts: number;
  /** When the run's first attempt was made (ISO 8601); null before it. */
  firstAttemptAt: string | null;
  /** BUSY answers in a row. */
  busyStreak: number;
}

export type DeliverWebhookWorkflow = (input: DeliverWebhookInput, progress?: DeliverWebhookProgress) => Promise<DeliverWebhookResult>;

/** One attempt of a run of deliverWebhookWorkflow. */
export interface WebhookAttemptInput extends DeliverWebhookInput {
  /** This run's attempt, 1 for its first; BUSY answers do not count. */
  attempt: number;
  /** When this run's first attempt was made (ISO 8601, workflow time): the retry window runs from it. */
  firstAttemptAt: string;
}

/**
 * One attempt's outcome (never the response body, never the secret). Every HTTP failure is an outcome,
 * recorded in webhook_attempts; the activity throws only when the service itself fails (database down).
 */
export type WebhookAttemptOutcome =
  /** 2xx: the attempt is recorded and the delivery settled DELIVERED in one transaction. */
  | { outcome: 'DELIVERED'; attemptNumber: number; statusCode: number; durationMs: number }
  /**
   * Recorded as a failed attempt. `retryInMs` is the wait before the next attempt (also recorded as the
   * delivery's next_attempt_at), or null when the retry window has ended and the delivery is to settle FAILED.
   */
  | { outcome: 'FAILED'; attemptNumber: number; statusCode: number | null; durationMs: number; errorClass: string; retryInMs: number | null }
  /** The endpoint's attempts in flight are at their limit (WEBHOOK_ENDPOINT_CONCURRENCY): nothing sent, nothing recorded. */
  | { outcome: 'BUSY' }
  /** Nothing to do: the delivery is settled already, or its endpoint was deleted or disabled (the delivery is then settled FAILED). */
  | { outcome: 'SKIPPED'; reason: string };

/** A BUSY attempt is tried again after a jittered wait from BUSY_RETRY_MS, doubling per BUSY answer in a row up to BUSY_RETRY_MAX_MS. */
export const BUSY_RETRY_MS = 1000;
export const BUSY_RETRY_MAX_MS = 30_000;

export interface DeliverWebhookActivities {
  /** Sends the event once to the endpoint (signed, resolved and checked at this attempt) and records the attempt. */
  attemptWebhookDelivery(input: WebhookAttemptInput): Promise<WebhookAttemptOutcome>;
  /**
   * Settles the delivery FAILED after its retry window. When its endpoint has been failing for
   * WEBHOOK_DISABLE_AFTER_DAYS, disables the endpoint (once: only the settlement that disables it answers true).
   */
  failWebhookDelivery(input: DeliverWebhookInput & { reason: string }): Promise<{ endpointDisabled: boolean }>;
  /** Mails the workspace's ADMINs that the service disabled the endpoint. */
  mailWebhookEndpointDisabled(input: DeliverWebhookInput): Promise<void>;
}
