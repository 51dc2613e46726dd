import type { Statement, Tx } from '../../db/connection';
import { auditEventStatement, recordAuditEvent, type AuditRecord } from '../../db/repositories/audit/events';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { Principal, RequestContext } from '../http/context';

type CallerEvent = { action: AuditAction; subjectType: string; subjectId: string; details?: string };

function callerRecord(principal: Principal, ctx: RequestContext, event: CallerEvent): AuditRecord {
  return { actorMembershipId: principal.membershipId, systemActor: false, correlationId: ctx.correlationId, ipAddress: ctx.ipAddress, ...event };
}

/** An audit event of something the caller did in this request, in the caller's transaction. */
export function recordCallerEvent(tx: Tx, principal: Principal, ctx: RequestContext, event: CallerEvent): Promise<string> {
  return recordAuditEvent(tx, { tenantId: principal.tenantId }, callerRecord(principal, ctx, event));
}

/**
 * An event a person caused as one of their memberships without holding its session (a failed login, a
 * password reset): the membership is both actor and subject.
 */
export function ownMembershipRecord(
  membership: { membership_id: string },
  ctx: RequestContext,
  action: AuditAction,
  details: string,
): AuditRecord {
  const id = membership.membership_id;
  return { actorMembershipId: id, systemActor: false, correlationId: ctx.correlationId, subjectType: 'MEMBERSHIP', subjectId: id, ipAddress: ctx.ipAddress, action, details };
}

/** The same event as a statement, to send in one batch with the change it records. */
export function callerEventStatement(principal: Principal, ctx: RequestContext, event: CallerEvent): Statement {
  return auditEventStatement({ tenantId: principal.tenantId }, callerRecord(principal, ctx, event)).statement;
}
