import type { Statement, Tx } from '../../db/connection';
import { auditEventStatement, recordAuditEvent, type AuditRecord } from '../../db/repositories/audit/events';
import type { AuditAction } from '../../core/audit/audit-actions';

/**
 * Who causes a change: a member of a workspace. A request's principal is one; so is the member on whose
 * behalf a workflow acts (the person who imported a statement, for the matches its rules confirm).
 */
export interface Actor {
  tenantId: string;
  membershipId: string;
}

/** Where a change comes from: the operation's correlation id, and the caller's address when a request made it. */
export interface Origin {
  correlationId: string;
  ipAddress: string | null;
}

type CallerEvent = { action: AuditAction; subjectType: string; subjectId: string; details?: string };

function callerRecord(actor: Actor, origin: Origin, event: CallerEvent): AuditRecord {
  return { actorMembershipId: actor.membershipId, systemActor: false, correlationId: origin.correlationId, ipAddress: origin.ipAddress, ...event };
}

/** An audit event of something the actor did, in the actor's transaction. */
export function recordCallerEvent(tx: Tx, actor: Actor, origin: Origin, event: CallerEvent): Promise<string> {
  return recordAuditEvent(tx, { tenantId: actor.tenantId }, callerRecord(actor, origin, event));
}

/** The same event as a statement, to send in one batch with the change it records. */
export function callerEventStatement(actor: Actor, origin: Origin, event: CallerEvent): Statement {
  return auditEventStatement({ tenantId: actor.tenantId }, callerRecord(actor, origin, event)).statement;
}
