import type { ActivityOptions } from '@temporalio/common';

// How long an activity may run and how it is retried, by kind of step: every workflow's proxyActivities
// takes one of these profiles, so a step's patience is read and changed in one place. Two kinds that retry
// differently stay two profiles even where they do the same thing (mailDelivery and invitationMail both
// mail). A profile without maximumAttempts retries until the step succeeds or a non-retryable failure
// ends it. Non-retryable failures (contracts/failures.ts) are never retried, whatever the profile.

export const activityProfiles = {
  /**
   * Mails a magic link (requestMagicLinkWorkflow, requestPasswordResetWorkflow) or a disabled webhook
   * endpoint's ADMINs (deliverWebhookWorkflow): rides out a provider outage of several minutes.
   */
  mailDelivery: {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
  },
  /** Mails an invitation (mailInvitationWorkflow): quick retries that give up within half a minute, as awaitedTransaction. */
  invitationMail: {
    startToCloseTimeout: '15 seconds',
    retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 8 },
  },
  /** Mails and forgets an emailed second-factor code (emailChallengeWorkflow): retried well within the code's validity. */
  emailChallengeStep: {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
  },
  /**
   * One transaction a request waits for (registerWorkflow, acceptInvitationWorkflow): quick retries, given
   * up within half a minute so the request gets its answer.
   */
  awaitedTransaction: {
    startToCloseTimeout: '15 seconds',
    retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 8 },
  },
  /**
   * A short idempotent database step nobody waits for (closePeriodWorkflow's steps, refreshRatesWorkflow's
   * storeRates, deliverWebhookWorkflow's failWebhookDelivery): retried until it succeeds.
   */
  databaseStep: {
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  },
  /**
   * The closing balances (closePeriodWorkflow): one statement over the period's lines, minutes for millions
   * of lines; heartbeats show it is alive. Retried until it succeeds, as databaseStep.
   */
  closingBalances: {
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  },
  /** A push message's bookkeeping (sendNotificationWorkflow: start, a failed delivery, the settlement): retried until it succeeds. */
  pushMessageStep: {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  },
  /** One device's push (sendNotificationWorkflow): an outage is retried with backoff for a few minutes, then the delivery settles FAILED. */
  pushDelivery: {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
  },
  /**
   * One webhook attempt (deliverWebhookWorkflow): the HTTP call (WEBHOOK_ATTEMPT_TIMEOUT_MS, at most a minute)
   * and its bookkeeping. A failed call is an outcome, not a failure: the workflow's own schedule retries it.
   * This policy retries only the service's own failures (the database down), until they pass. The attempt
   * heartbeats while it waits for the receiver, so a worker that dies mid-attempt is noticed in seconds.
   */
  webhookAttempt: {
    startToCloseTimeout: '75 seconds',
    heartbeatTimeout: '5 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  },
  /**
   * The central bank's rates (refreshRatesWorkflow): the rate of record, so more patience than the
   * commercial bank. Only outages are retried (a malformed document or a 4xx is non-retryable).
   */
  centralBankSource: {
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: '3 minutes',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  },
  /** The commercial bank's quotes (refreshRatesWorkflow): a convenience, given up sooner. */
  commercialBankSource: {
    startToCloseTimeout: '20 seconds',
    scheduleToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
  },
  /**
   * One kind's pruning (housekeepingWorkflow), batch after batch. Each batch heartbeats: a worker that died
   * mid-kind is noticed in a minute, and the retry goes on.
   */
  pruneBatches: {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
  },
  /**
   * A bank statement's file read, checked and its lines stored, or its lines matched (importBankStatementWorkflow):
   * seconds for a large file; heartbeats show it is alive. Retried until it succeeds: each step is one
   * transaction that finds its own work done when a killed worker's retry comes.
   */
  statementImportStep: {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '20 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  },
} as const satisfies Record<string, ActivityOptions>;
