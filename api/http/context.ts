// What the HTTP layer hands to services: plain data, no Express types.

export interface RequestContext {
  correlationId: string;
  ipAddress: string | null;
  userAgent: string | null;
  host: HostContext;
}

export type HostContext =
  | { kind: 'central' }
  | { kind: 'callbacks' }
  | { kind: 'tenant'; slug: string };

export interface Principal {
  tenantId: string;
  membershipId: string;
  userId: string;
  identityId: string;
  sessionId: string;
  roles: string[];
}
