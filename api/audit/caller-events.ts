import type { Tx } from '../../db/connection';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import type { AuditAction } from '../../core/audit-actions';
import type { Principal, RequestContext } from '../http/context';

/** An audit event of something the caller did in this request, in the caller's transaction. */
export function recordCallerEvent(
  tx: Tx,
  principal: Principal,
  ctx: RequestContext,
  event: { action: AuditAction; subjectType: string; subjectId: string; details?: string },
): Promise<string> {
  return recordAuditEvent(tx, { tenantId: principal.tenantId }, {
    actorMembershipId: principal.membershipId,
    systemActor: false,
    correlationId: ctx.correlationId,
    ipAddress: ctx.ipAddress,
    ...event,
  });
}
