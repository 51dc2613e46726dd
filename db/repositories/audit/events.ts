import { randomUUID } from 'node:crypto';
import { execute, type Db, type Statement } from '../../connection';
import { AUDIT_ACTIONS, type AuditAction } from '../../../core/audit/audit-actions';

export interface AuditRecord {
  action: AuditAction;
  actorMembershipId: string | null;
  /** Looked up from the actor's membership when not given. */
  actorDisplayName?: string;
  systemActor: boolean;
  correlationId: string;
  subjectType: string;
  subjectId: string;
  ipAddress: string | null;
  details?: string;
}

/** The insert of an audit event, to send in the caller's transaction (see recordAuditEvent), and its id. */
export function auditEventStatement(scope: { tenantId: string }, record: AuditRecord): { id: string; statement: Statement } {
  const id = randomUUID();
  // Raw SQL: the display name is read from the membership inside the same statement, which travels in the
  // caller's batch (selectBatch).
  const sql = `INSERT INTO audit_events (tenant_id, id, action, category, actor_membership_id, actor_display_name, system_actor,
                               correlation_id, subject_type, subject_id, ip_address, details)
     VALUES (:tenantId, :id, :action, :category, :actorMembershipId,
             coalesce(:actorDisplayName, (SELECT u.display_name FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
                                           WHERE m.tenant_id = :tenantId AND m.id = :actorMembershipId), ''),
             :systemActor, :correlationId, :subjectType, :subjectId, :ipAddress, :details)`;
  const replacements = {
    id,
    tenantId: scope.tenantId,
    action: record.action,
    category: AUDIT_ACTIONS[record.action].category,
    actorMembershipId: record.actorMembershipId,
    actorDisplayName: record.actorDisplayName ?? null,
    systemActor: record.systemActor,
    correlationId: record.correlationId,
    subjectType: record.subjectType,
    subjectId: record.subjectId,
    ipAddress: record.ipAddress,
    details: record.details ?? '',
  };
  return { id, statement: { sql, replacements } };
}

/**
 * Writes an audit event inside the caller's transaction, so it commits with the mutation or not at all.
 * One statement: the actor's display name, when not given, is read from their membership as it is inserted.
 */
export async function recordAuditEvent(tx: Db, scope: { tenantId: string }, record: AuditRecord): Promise<string> {
  const { id, statement } = auditEventStatement(scope, record);
  await execute(tx, statement.sql, statement.replacements);
  return id;
}
