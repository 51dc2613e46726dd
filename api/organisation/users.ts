import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import {
  endMembership,
  findMember,
  listMembers,
  otherActiveAdmins,
  revokeMembershipSessions,
  updateMember,
  type MemberRow,
} from '../../db/repositories/organisation/users';
import { AppError } from '../../core/shared/problems';
import type { RoleCode } from '../../core/organisation/roles';
import { grantsOf } from './grants';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { PageQuery } from '../http/pages';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { WebhookEvents } from '../webhooks/events';

type UserView = Schemas['UserView'];

function viewOf(row: MemberRow): UserView {
  return {
    id: row.id,
    userId: row.userId,
    email: row.email,
    contactEmail: row.contactEmail,
    displayName: row.displayName,
    status: row.status,
    roles: row.roles,
    lastLogin: row.lastLogin ? new Date(row.lastLogin).toISOString() : null,
    lockVersion: row.lockVersion,
  };
}

const NO_MEMBER = 'No member with this id in your workspace';

/** The workspace's members: list, read, change role/status/names, remove. */
export function createUsers(deps: { db: Sequelize; webhookEvents: WebhookEvents }) {
  const { db, webhookEvents } = deps;

  async function listUsers(principal: Principal, filter: { q: string; status?: 'ACTIVE' | 'SUSPENDED'; role?: RoleCode } & PageQuery): Promise<Schemas['UserPage']> {
    const scope = { tenantId: principal.tenantId };
    const { items, total } = await withTenant(db, scope.tenantId, (tx) => listMembers(tx, scope, filter));
    return { items: items.map(viewOf), page: filter.page, size: filter.size, totalElements: total };
  }

  async function getUser(principal: Principal, membershipId: string): Promise<UserView> {
    const scope = { tenantId: principal.tenantId };
    const row = await withTenant(db, scope.tenantId, (tx) => findMember(tx, scope, membershipId));
    if (!row) throw new AppError('not-found', NO_MEMBER);
    return viewOf(row);
  }

  async function updateUser(principal: Principal, membershipId: string, body: Schemas['UserRequest'], ctx: RequestContext): Promise<UserView> {
    const scope = { tenantId: principal.tenantId };
    const { view, starts } = await withTenant(db, scope.tenantId, async (tx) => {
      const current = await findMember(tx, scope, membershipId, { lock: true });
      if (!current) throw new AppError('not-found', NO_MEMBER);
      // Any change (role, status, names): only by someone holding every role the member holds.
      const grants = await grantsOf(tx, principal);
      grants.assertMayManage(current.roles, 'member');
      if (current.lockVersion !== body.lockVersion) throw new AppError('stale-version', 'The member changed since you read it; reload and retry');
      grants.assertMayGrant([body.role]);
      const losesAdmin = current.roles.includes('ADMIN') && current.status === 'ACTIVE' && (body.role !== 'ADMIN' || body.status !== 'ACTIVE');
      if (losesAdmin && (await otherActiveAdmins(tx, scope, membershipId)) === 0) {
        throw new AppError('last-admin', 'This is the last active administrator: make someone else ADMIN first');
      }
      const contactEmail = body.contactEmail === undefined ? current.contactEmail : body.contactEmail;
      if (!(await updateMember(tx, scope, { membershipId, lockVersion: body.lockVersion, displayName: body.displayName, contactEmail, status: body.status, role: body.role }))) {
        throw new AppError('stale-version', 'The member changed since you read it; reload and retry');
      }
      const changes: string[] = [];
      if (current.displayName !== body.displayName) changes.push('display name');
      if (current.contactEmail !== contactEmail) changes.push('contact email');
      if (current.roles.join(',') !== body.role) changes.push(`role ${current.roles.join('+') || 'none'} → ${body.role}`);
      if (current.status !== body.status) changes.push(`status ${current.status} → ${body.status}`);
      if (body.status === 'SUSPENDED') {
        // A suspended member is out at once: every session of this workspace ends now, and stays ended.
        const ended = await revokeMembershipSessions(tx, scope, { membershipId, reason: 'MEMBERSHIP_SUSPENDED' });
        if (ended > 0) changes.push(`${ended} session(s) ended`);
      }
      await recordCallerEvent(tx, principal, ctx, {
        action: current.status === body.status ? 'users.member.updated' : body.status === 'SUSPENDED' ? 'users.member.suspended' : 'users.member.reactivated',
        subjectType: 'MEMBERSHIP',
        subjectId: membershipId,
        details: changes.join('; '),
      });
      const updated = (await findMember(tx, scope, membershipId))!;
      const starts = await webhookEvents.record(tx, scope.tenantId, {
        type: 'member.updated',
        data: { membershipId, userId: updated.userId, roles: updated.roles, status: updated.status },
      });
      return { view: viewOf(updated), starts };
    });
    await webhookEvents.dispatch(starts);
    return view;
  }

  async function removeUser(principal: Principal, membershipId: string, body: Schemas['VersionRequest'], ctx: RequestContext): Promise<void> {
    const scope = { tenantId: principal.tenantId };
    const starts = await withTenant(db, scope.tenantId, async (tx) => {
      const current = await findMember(tx, scope, membershipId, { lock: true });
      if (!current) throw new AppError('not-found', NO_MEMBER);
      (await grantsOf(tx, principal)).assertMayManage(current.roles, 'member');
      if (current.lockVersion !== body.lockVersion) throw new AppError('stale-version', 'The member changed since you read it; reload and retry');
      if (current.roles.includes('ADMIN') && current.status === 'ACTIVE' && (await otherActiveAdmins(tx, scope, membershipId)) === 0) {
        throw new AppError('last-admin', 'This is the last active administrator: make someone else ADMIN first');
      }
      if (!(await endMembership(tx, scope, { membershipId, lockVersion: body.lockVersion }))) {
        throw new AppError('stale-version', 'The member changed since you read it; reload and retry');
      }
      const ended = await revokeMembershipSessions(tx, scope, { membershipId, reason: 'MEMBERSHIP_ENDED' });
      await recordCallerEvent(tx, principal, ctx, {
        action: 'users.member.removed',
        subjectType: 'MEMBERSHIP',
        subjectId: membershipId,
        details: `${current.email}; ${ended} session(s) ended`,
      });
      return webhookEvents.record(tx, scope.tenantId, {
        type: 'member.removed',
        data: { membershipId, userId: current.userId, roles: current.roles, status: 'REMOVED' },
      });
    });
    await webhookEvents.dispatch(starts);
  }

  return { listUsers, getUser, updateUser, removeUser };
}
