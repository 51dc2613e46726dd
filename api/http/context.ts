// What the HTTP layer hands to services: plain data, no Express types.

export interface RequestContext {
  /** The service's id of this operation, always generated here: audit events and workflows carry it. */
  correlationId: string;
  /** The client's own X-Correlation-Id, when it sent a well-formed one: logged and echoed, never adopted. */
  clientCorrelationId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  host: HostContext;
}

export type HostContext =
  | { kind: 'central' }
  | { kind: 'callbacks' }
  | { kind: 'tenant'; slug: string }
  /** A name outside the base domain, or one nginx would not route either: nothing is served on it. */
  | { kind: 'unknown' };

export interface Principal {
  tenantId: string;
  membershipId: string;
  userId: string;
  identityId: string;
  sessionId: string;
  roles: string[];
}
