import type { AuditRecord } from '../../db/repositories/audit/events';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { RequestContext } from '../http/context';

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
