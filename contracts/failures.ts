// Application failure types that activities raise and the API maps back to problem types.
// Each is non-retryable: retrying cannot change the answer.

export const FailureType = {
  RegistrationProofInvalid: 'RegistrationProofInvalid',
  InvalidCredentials: 'InvalidCredentials',
  InvitationInvalid: 'InvitationInvalid',
  ChallengeMismatch: 'ChallengeMismatch',
  LedgerUnbalanced: 'LedgerUnbalanced',
  BalancesOverflow: 'BalancesOverflow',
} as const;

export type FailureType = (typeof FailureType)[keyof typeof FailureType];
