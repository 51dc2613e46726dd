import type { Sequelize } from 'sequelize';
import type { OpenApiDocument, OperationIndex } from '../../contracts/operations';
import { memberOperation, publicOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import { createCompany } from './company';
import type { createInvitations } from './invitations';
import { createRoles } from './roles';
import { createUsers } from './users';
import type { WebhookEvents } from '../webhooks/events';

export type OrganisationOperation =
  | 'listUsers'
  | 'getUser'
  | 'updateUser'
  | 'removeUser'
  | 'listRoles'
  | 'getRole'
  | 'updateRolePermissions'
  | 'resetRolePermissions'
  | 'listPermissions'
  | 'completeOnboarding'
  | 'archiveCompany'
  | 'createInvitation'
  | 'revokeInvitation'
  | 'acceptInvitation';

/** The workspace's members, roles and permissions. */
export function organisationHandlers(deps: {
  db: Sequelize;
  doc: OpenApiDocument;
  index: OperationIndex;
  invitations: ReturnType<typeof createInvitations>;
  webhookEvents: WebhookEvents;
}): HandlersOf<OrganisationOperation> {
  const { invitations } = deps;
  const users = createUsers(deps);
  const roles = createRoles(deps);
  const company = createCompany(deps);
  return {
    listUsers: memberOperation(async ({ principal, query }) => ({
      status: 200,
      body: await users.listUsers(principal, { q: query.q ?? '', status: query.status, role: query.role, ...pageQuery(query) }),
    })),

    getUser: memberOperation(async ({ principal, params }) => ({ status: 200, body: await users.getUser(principal, params.userId) })),

    updateUser: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await users.updateUser(principal, params.userId, body, ctx),
    })),

    removeUser: memberOperation(async ({ principal, params, body, ctx }) => {
      await users.removeUser(principal, params.userId, body, ctx);
      return { status: 204 };
    }),

    listRoles: memberOperation(async ({ principal }) => ({ status: 200, body: await roles.listRoles(principal) })),

    getRole: memberOperation(async ({ principal, params }) => ({ status: 200, body: await roles.getRole(principal, params.roleId) })),

    updateRolePermissions: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await roles.updateRolePermissions(principal, params.roleId, body, ctx),
    })),

    resetRolePermissions: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await roles.resetRolePermissions(principal, params.roleId, body, ctx),
    })),

    listPermissions: memberOperation(() => ({ status: 200, body: roles.listPermissions() })),

    completeOnboarding: memberOperation(async ({ principal, body, ctx }) => ({ status: 200, body: await company.completeOnboarding(principal, body, ctx) })),

    archiveCompany: memberOperation(async ({ principal, ctx }) => ({ status: 200, body: await company.archiveCompany(principal, ctx) })),

    createInvitation: memberOperation(async ({ principal, body, query, ctx }) => ({
      status: 201,
      body: await invitations.createInvitation(principal, body, query.delivery ?? 'EMAIL', ctx),
    })),

    revokeInvitation: memberOperation(async ({ principal, params, ctx }) => {
      await invitations.revokeInvitation(principal, params.invitationId, ctx);
      return { status: 204 };
    }),

    acceptInvitation: publicOperation(async ({ body, ctx }) => {
      const outcome = await invitations.acceptInvitation(body, ctx);
      return outcome.kind === 'challenge' ? { status: 202, body: outcome.challenge } : { status: 200, body: outcome.tokens };
    }),
  };
}
