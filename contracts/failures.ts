// Application failure types that activities raise and the API maps back to problem types.
// Each is non-retryable: retrying cannot change the answer (RatesSourceUnavailable, below, is the exception).

export const FailureType = {
  MagicLinkInvalid: 'MagicLinkInvalid',
  InvalidCredentials: 'InvalidCredentials',
  InvitationInvalid: 'InvitationInvalid',
  ChallengeMismatch: 'ChallengeMismatch',
  LedgerUnbalanced: 'LedgerUnbalanced',
  BalancesOverflow: 'BalancesOverflow',
  /** A currency with a balance to revalue has no CBU rate on or before the revaluation date. */
  RateUnavailable: 'RateUnavailable',
  /** The revaluation date is closed (or closing) by now. */
  PeriodClosed: 'PeriodClosed',
  /** A rate source answered something that is not its document (not JSON, not a list, no usable row). */
  RatesDocumentMalformed: 'RatesDocumentMalformed',
  /** A rate source refused the request in a way a retry will not change (HTTP 4xx). */
  RatesSourceRefused: 'RatesSourceRefused',
  /** The push provider refused a notification for good (malformed, sender mismatch). */
  PushRejected: 'PushRejected',
  /** The mail provider refused a message for good (a 4xx other than 408/429). */
  MailRejected: 'MailRejected',
} as const;

export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** A rate source could not be reached or answered 5xx: retried on the source's retry profile. */
export const RATES_SOURCE_UNAVAILABLE = 'RatesSourceUnavailable';

/** The push provider could not take a notification now: retried with backoff. */
export const PUSH_UNAVAILABLE = 'PushUnavailable';
