// The catalogue of problem types: one place maps every error the service can answer with
// to its stable type URI, HTTP status and title. docs/problems.md mirrors this list.

export const PROBLEMS = {
  validation: { status: 400, title: 'The request is not valid' },
  'login-factors-invalid': { status: 400, title: 'Second-factor fields are mixed or incomplete' },
  'tenant-host-required': { status: 400, title: 'Log in on the workspace host' },
  'invitation-invalid': { status: 400, title: 'The invitation is invalid, expired, revoked, superseded or already used' },
  'registration-proof-invalid': { status: 400, title: 'The registration proof is invalid, expired or already used' },
  'password-reset-invalid': { status: 400, title: 'The password reset link is invalid, expired, superseded or already used' },
  'current-password-incorrect': { status: 400, title: 'The current password is incorrect' },
  'password-too-common': { status: 400, title: 'The new password is a commonly used or breached password' },
  'second-factor-code-incorrect': { status: 400, title: 'The code is wrong, expired or already used' },
  'entry-unbalanced': { status: 400, title: 'The debits of the entry do not equal its credits' },
  'unknown-account': { status: 400, title: 'A line names an account or subaccount this company does not have' },
  'header-account': { status: 400, title: 'The account is a header account; use one of its detail accounts' },
  'unknown-counterparty': { status: 400, title: 'A line names a counterparty this company does not have, or an archived one' },
  'counterparty-required': { status: 400, title: 'A line on a settlement account must name a counterparty' },
  'conversion-mismatch': { status: 400, title: 'A line\'s UZS amount is not its foreign amount at its rate' },
  'invalid-credentials': { status: 401, title: 'Email or password is incorrect' },
  'invalid-refresh-token': { status: 401, title: 'The refresh token is invalid, expired or already used' },
  'invalid-second-factor': { status: 401, title: 'The second-factor code is wrong, expired or already used' },
  'permission-denied': { status: 403, title: 'The caller lacks the permission for this operation' },
  'step-up-required': { status: 403, title: 'Confirm a second factor for this session first' },
  'role-not-held': { status: 403, title: 'Nobody assigns, or changes someone holding, a role they do not hold themselves' },
  'not-found': { status: 404, title: 'The resource does not exist or is not visible' },
  'method-not-allowed': { status: 405, title: 'The method is not allowed on this resource' },
  'not-acceptable': { status: 406, title: 'The resource is not offered in any media type the Accept header names' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  'second-factor-state': { status: 409, title: 'The second factor is not in a state that allows this' },
  'admin-role-fixed': { status: 409, title: 'ADMIN keeps every permission' },
  'last-admin': { status: 409, title: 'The workspace would be left without an active administrator' },
  'stale-version': { status: 409, title: 'The resource changed since you read it; reload and retry' },
  'company-archived': { status: 409, title: 'The company is archived; its accounting settings cannot change' },
  'account-code-exists': { status: 409, title: 'The account code exists in the global or the company chart' },
  'subaccount-code-exists': { status: 409, title: 'The subaccount code exists under this account' },
  'counterparty-tin-exists': { status: 409, title: 'A counterparty of this company has this TIN or PINFL' },
  'bank-account-number-exists': { status: 409, title: 'A bank account of this company has this account number' },
  'inventory-number-exists': { status: 409, title: 'A fixed asset of this company has this inventory number' },
  'supplier-number-exists': { status: 409, title: 'An invoice of this supplier has this number' },
  'document-state': { status: 409, title: 'The document is not in a state that allows this' },
  'bank-account-archived': { status: 409, title: 'The bank account is archived' },
  'bank-line-matched': { status: 409, title: 'The bank line is matched already; unmatch it first' },
  'bank-line-not-matched': { status: 409, title: 'The bank line is not matched' },
  'bank-line-no-proposal': { status: 409, title: 'The bank line has no proposal to accept' },
  'document-has-allocations': { status: 409, title: 'Payments are allocated to the document; cancel them first' },
  'allocation-exceeds-outstanding': { status: 409, title: 'The allocation is more than the invoice has outstanding' },
  'allocation-exceeds-payment': { status: 409, title: 'The allocations are more than the payment has unallocated' },
  'period-closed': { status: 409, title: 'The period of this date is closed or being closed' },
  'period-already-closed': { status: 409, title: 'The ledger is already closed through this date or a later one' },
  'period-close-running': { status: 409, title: 'Another period close of this company is still running' },
  'rate-unavailable': { status: 409, title: 'No CBU rate is stored for the currency on or before the date' },
  'revaluation-out-of-order': { status: 409, title: 'A later revaluation of this company exists' },
  'revaluation-running': { status: 409, title: 'A revaluation of this company is still running' },
  'entry-already-reversed': { status: 409, title: 'The entry has already been reversed' },
  'entry-not-reversible': { status: 409, title: 'A reversal or a revaluation cannot be reversed' },
  'request-id-reused': { status: 409, title: 'The requestId was already used for a different request' },
  'recipient-not-active': { status: 409, title: 'The recipient is not an active member of the workspace' },
  'webhook-endpoint-limit': { status: 409, title: 'The workspace has the most webhook endpoints it may have' },
  'webhook-deliveries-pending': { status: 409, title: 'The endpoint has the most undelivered deliveries it may have' },
  'payload-too-large': { status: 413, title: 'The request body is too large' },
  'unsupported-media-type': { status: 415, title: 'The request body is not of a type the operation takes' },
  'too-many-attempts': { status: 429, title: 'Too many attempts; wait before trying again' },
  'too-many-requests': { status: 429, title: 'Too many requests; wait before trying again' },
  internal: { status: 500, title: 'An unexpected error occurred' },
  'operation-pending': { status: 503, title: 'The operation did not finish in time; it may still complete' },
  'dependency-unavailable': { status: 503, title: 'A service this operation depends on is unavailable' },
  'server-busy': { status: 503, title: 'The service is busy; try again shortly' },
} as const;

export type ProblemType = keyof typeof PROBLEMS;

export function problemTypeUri(type: ProblemType): string {
  return `/problems/${type}`;
}

export interface ProblemExtensions {
  [member: string]: unknown;
}

/** The single error type the API maps to problem documents. `detail` must be safe to show a client. */
export class AppError extends Error {
  readonly type: ProblemType;
  readonly status: number;
  readonly detail: string;
  readonly extensions: ProblemExtensions;
  readonly headers: Record<string, string>;

  constructor(type: ProblemType, detail?: string, extensions: ProblemExtensions = {}, headers: Record<string, string> = {}) {
    super(detail ?? PROBLEMS[type].title);
    this.name = 'AppError';
    this.type = type;
    this.status = PROBLEMS[type].status;
    this.detail = detail ?? PROBLEMS[type].title;
    this.extensions = extensions;
    this.headers = headers;
  }
}

/** Authentication failures answer 401 with an empty body, as the interface allows. */
export class UnauthenticatedError extends Error {
  constructor(
    readonly reason: string,
    /** The WWW-Authenticate challenge: bearer tokens, or the callback's shared token. */
    readonly challenge: string = 'Bearer',
  ) {
    super('unauthenticated');
    this.name = 'UnauthenticatedError';
  }
}

/** A token used on another tenant's host answers 403 with an empty body. */
export class TenantHostMismatchError extends Error {
  constructor() {
    super('tenant host mismatch');
    this.name = 'TenantHostMismatchError';
  }
}
