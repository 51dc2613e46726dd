import { randomUUID } from 'node:crypto';
import { execute, selectRows, type Db } from '../../connection';
import type { RoleCode } from '../../../core/organisation/roles';

// Invitations into a workspace and their acceptances. Serves createInvitation, revokeInvitation and
// acceptInvitation, and the activities of mailInvitationWorkflow and acceptInvitationWorkflow. Raw SQL: the pending-invitation rules are
// conditional writes (supersede, consume once) that decide races.

type Scope = { tenantId: string };

export interface InvitationRow {
  id: string;
  email: string;
  roles: RoleCode[];
  delivery: 'EMAIL' | 'MANUAL';
  expiresAt: Date;
  mailedAt: Date | null;
  pending: boolean;
  consumedByAcceptance: string | null;
  acceptedMembershipId: string | null;
  /** Found by the token the invitation mail carried: its holder reads the invitee's mailbox. */
  mailboxProven: boolean;
}

const COLUMNS = `id, email, roles, delivery, expires_at AS "expiresAt", mailed_at AS "mailedAt",
  (consumed_at IS NULL AND revoked_at IS NULL AND superseded_at IS NULL AND expires_at > now()) AS pending,
  consumed_by_acceptance AS "consumedByAcceptance", accepted_membership_id AS "acceptedMembershipId"`;

/** Creates a pending invitation, superseding the pending one for the same email. */
export async function createInvitation(
  tx: Db,
  scope: Scope,
  input: { email: string; roles: RoleCode[]; delivery: 'EMAIL' | 'MANUAL'; tokenHash: Buffer; invitedBy: string; ttlSeconds: number },
): Promise<{ id: string; expiresAt: Date }> {
  await execute(
    tx,
    `UPDATE membership_invitations SET superseded_at = now()
      WHERE tenant_id = :tenantId AND email = :email AND consumed_at IS NULL AND revoked_at IS NULL AND superseded_at IS NULL`,
    { ...scope, email: input.email },
  );
  const id = randomUUID();
  const [row] = await selectRows<{ expires_at: Date }>(
    tx,
    `INSERT INTO membership_invitations (tenant_id, id, email, roles, delivery, token_hash, invited_by_membership_id, expires_at)
     VALUES (:tenantId, :id, :email, ARRAY[:roles]::text[], :delivery, :tokenHash, :invitedBy, now() + make_interval(secs => :ttlSeconds))
     RETURNING expires_at`,
    { ...scope, id, ...input },
  );
  return { id, expiresAt: new Date(row!.expires_at) };
}

/** By id, or by either of its tokens: the one answered to the inviter (MANUAL) or the one mailed. */
export async function findInvitation(tx: Db, scope: Scope, by: { id: string } | { tokenHash: Buffer }, options: { lock?: boolean } = {}): Promise<InvitationRow | null> {
  const [where, proven] =
    'id' in by ? ['id = :id', 'false'] : ['(token_hash = :tokenHash OR mailed_token_hash = :tokenHash)', 'mailed_token_hash IS NOT DISTINCT FROM :tokenHash'];
  const [row] = await selectRows<InvitationRow>(
    tx,
    `SELECT ${COLUMNS}, ${proven} AS "mailboxProven" FROM membership_invitations
      WHERE tenant_id = :tenantId AND ${where} ${options.lock ? 'FOR UPDATE' : ''}`,
    { ...scope, ...by },
  );
  return row ?? null;
}

/** The invitation a new one for `email` would supersede (pending and unexpired), locked; null when none. */
export async function findPendingInvitationFor(tx: Db, scope: Scope, email: string): Promise<InvitationRow | null> {
  const [row] = await selectRows<InvitationRow>(
    tx,
    `SELECT ${COLUMNS} FROM membership_invitations
      WHERE tenant_id = :tenantId AND email = :email AND consumed_at IS NULL AND revoked_at IS NULL AND superseded_at IS NULL AND expires_at > now()
      FOR UPDATE`,
    { ...scope, email },
  );
  return row ?? null;
}

/** Revokes a pending invitation; false when it was not pending. */
export async function revokeInvitation(tx: Db, scope: Scope, invitationId: string): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `UPDATE membership_invitations SET revoked_at = now()
      WHERE tenant_id = :tenantId AND id = :invitationId AND consumed_at IS NULL AND revoked_at IS NULL AND superseded_at IS NULL
      RETURNING id`,
    { ...scope, invitationId },
  );
  return rows.length === 1;
}

/** Sets the mailed token of an invitation not mailed yet (the mail activity draws the token it mails). */
export async function setMailedToken(tx: Db, scope: Scope, input: { invitationId: string; tokenHash: Buffer }): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `UPDATE membership_invitations SET mailed_token_hash = :tokenHash WHERE tenant_id = :tenantId AND id = :invitationId AND mailed_at IS NULL RETURNING id`,
    { ...scope, ...input },
  );
  return rows.length === 1;
}

export async function markMailed(tx: Db, scope: Scope, invitationId: string): Promise<void> {
  await execute(tx, `UPDATE membership_invitations SET mailed_at = now() WHERE tenant_id = :tenantId AND id = :invitationId`, { ...scope, invitationId });
}

export async function consumeInvitation(tx: Db, scope: Scope, input: { invitationId: string; acceptanceId: string; membershipId: string }): Promise<void> {
  await execute(
    tx,
    `UPDATE membership_invitations SET consumed_at = now(), consumed_by_acceptance = :acceptanceId, accepted_membership_id = :membershipId
      WHERE tenant_id = :tenantId AND id = :invitationId`,
    { ...scope, ...input },
  );
}

export interface AcceptanceRow {
  invitationId: string;
  existingIdentityId: string | null;
  passwordHash: string | null;
  ipAddress: string | null;
  mailboxProven: boolean;
}

export async function recordAcceptance(
  tx: Db,
  scope: Scope,
  input: {
    invitationId: string;
    existingIdentityId: string | null;
    passwordHash: string | null;
    mailboxProven: boolean;
    correlationId: string;
    ipAddress: string | null;
  },
): Promise<string> {
  const id = randomUUID();
  await execute(
    tx,
    `INSERT INTO invitation_acceptances (tenant_id, id, invitation_id, existing_identity_id, password_hash, mailbox_proven, correlation_id, ip_address)
     VALUES (:tenantId, :id, :invitationId, :existingIdentityId, :passwordHash, :mailboxProven, :correlationId, :ipAddress)`,
    { ...scope, id, ...input },
  );
  return id;
}

export async function findAcceptance(tx: Db, scope: Scope, acceptanceId: string): Promise<AcceptanceRow | null> {
  const [row] = await selectRows<AcceptanceRow>(
    tx,
    `SELECT invitation_id AS "invitationId", existing_identity_id AS "existingIdentityId", password_hash AS "passwordHash",
            ip_address AS "ipAddress", mailbox_proven AS "mailboxProven"
       FROM invitation_acceptances WHERE tenant_id = :tenantId AND id = :acceptanceId`,
    { ...scope, acceptanceId },
  );
  return row ?? null;
}

/** The acceptance's password hash is gone once used (or once its request lost). */
export async function scrubAcceptance(tx: Db, scope: Scope, acceptanceId: string): Promise<void> {
  await execute(tx, `UPDATE invitation_acceptances SET password_hash = NULL WHERE tenant_id = :tenantId AND id = :acceptanceId`, { ...scope, acceptanceId });
}

/**
 * Makes the identity a member with `roles`: reuses the person's user row in this workspace (a former
 * member comes back as the same user) and opens a new ACTIVE membership. Null when one is already open.
 */
export async function openMembership(tx: Db, scope: Scope, input: { identityId: string; displayName: string; email: string; roles: RoleCode[] }): Promise<string | null> {
  const [user] = await selectRows<{ id: string }>(
    tx,
    `INSERT INTO users (tenant_id, id, identity_id, display_name, contact_email) VALUES (:tenantId, :userId, :identityId, :displayName, :email)
     ON CONFLICT (tenant_id, identity_id) DO UPDATE SET identity_id = EXCLUDED.identity_id RETURNING id`,
    { ...scope, userId: randomUUID(), ...input },
  );
  const membershipId = randomUUID();
  const opened = await selectRows<{ id: string }>(
    tx,
    `INSERT INTO memberships (tenant_id, id, user_id, status) VALUES (:tenantId, :membershipId, :userId, 'ACTIVE')
     ON CONFLICT DO NOTHING RETURNING id`,
    { ...scope, membershipId, userId: user!.id },
  );
  if (opened.length === 0) return null;
  await execute(
    tx,
    `INSERT INTO membership_roles (tenant_id, membership_id, role_id) SELECT :tenantId, :membershipId, id FROM roles WHERE tenant_id = :tenantId AND code IN (:roles)`,
    { ...scope, membershipId, roles: input.roles },
  );
  return membershipId;
}
