import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { AuditEvent } from '../models';
import type { Tx } from '../connection';
import { AUDIT_ACTIONS, type AuditAction } from '../../core/audit-actions';

export interface AuditRecord {
  tenantId: string;
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

/** Writes an audit event inside the caller's transaction, so it commits with the mutation or not at all. */
export async function recordAuditEvent(tx: Tx, record: AuditRecord): Promise<string> {
  const id = randomUUID();
  let actorDisplayName = record.actorDisplayName ?? '';
  if (record.actorDisplayName === undefined && record.actorMembershipId) {
    const rows = await AuditEvent.sequelize!.query<{ display_name: string }>(
      `SELECT u.display_name FROM memberships m JOIN users u ON u.tenant_id = m.tenant_id AND u.id = m.user_id
        WHERE m.tenant_id = :tenantId AND m.id = :membershipId`,
      { replacements: { tenantId: record.tenantId, membershipId: record.actorMembershipId }, type: QueryTypes.SELECT, transaction: tx },
    );
    actorDisplayName = rows[0]?.display_name ?? '';
  }
  await AuditEvent.create(
    {
      id,
      tenantId: record.tenantId,
      action: record.action,
      category: AUDIT_ACTIONS[record.action].category,
      actorMembershipId: record.actorMembershipId,
      actorDisplayName,
      systemActor: record.systemActor,
      correlationId: record.correlationId,
      subjectType: record.subjectType,
      subjectId: record.subjectId,
      ipAddress: record.ipAddress,
      details: record.details ?? '',
    },
    { transaction: tx },
  );
  return id;
}
