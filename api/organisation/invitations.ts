import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import {
  createInvitation as insertInvitation,
  findInvitation,
  findPendingInvitationFor,
  recordAcceptance,
  revokeInvitation as revokeRow,
  scrubAcceptance,
} from '../../db/repositories/organisation/invitations';
import { tenantIdBySlug } from '../../db/repositories/organisation/workspaces';
import { findIdentityByEmail } from '../../db/repositories/identity/identities';
import { newOpaqueToken, sha256 } from '../../core/identity/secrets';
import { normaliseEmail } from '../../core/identity/email';
import { AppError } from '../../core/shared/problems';
import type { PasswordHasher } from '../../core/identity/passwords';
import type { RoleCode } from '../../core/organisation/roles';
import {
  ACCEPT_INVITATION_WORKFLOW,
  MAIL_INVITATION_WORKFLOW,
  type AcceptInvitationWorkflow,
  type MailInvitationWorkflow,
} from '../../contracts/organisation';
import { acceptInvitationWorkflowId, mailInvitationWorkflowId } from '../../contracts/workflow-ids';
import type { WorkflowClient } from '../workflow-client';
import type { CredentialGuard, RequestLimits } from '../http/request-limits';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { recordCallerEvent } from '../../services/audit/caller-events';
import { grantsOf } from './grants';
import { assertNewPassword, assertPasswordWithinBytes } from '../identity/password-rules';
import type { SignIn, SignInOutcome } from '../identity/sign-in';

const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

/** One answer for a wrong password and for an address without an identity: it tells nobody which it was. */
const notAuthenticated = () =>
  new AppError(
    'invalid-credentials',
    'The password is not the current password of the invited address. If the address has no account yet, a link to join was mailed to it.',
  );
const NEW_IDENTITY_PASSWORD_MIN_CHARACTERS = 15;

export interface InvitationDeps {
  db: Sequelize;
  workflows: WorkflowClient;
  hasher: PasswordHasher;
  signIn: SignIn;
  limits: RequestLimits;
  guard: CredentialGuard;
}

/** A session in the workspace, or the challenge of the existing identity's second factor. */
export type AcceptOutcome = SignInOutcome;

/** Invitations into a workspace. */
export function createInvitations(deps: InvitationDeps) {
  const { db } = deps;

  async function createInvitation(
    principal: Principal,
    body: Schemas['InvitationCreateRequest'],
    delivery: 'EMAIL' | 'MANUAL',
    ctx: RequestContext,
  ): Promise<Schemas['InvitationCreateResponse']> {
    const scope = { tenantId: principal.tenantId };
    // MANUAL: this token is answered once. EMAIL: a placeholder nobody knows; the mail activity draws the real one.
    const token = newOpaqueToken();
    const email = normaliseEmail(body.email);
    const created = await withTenant(db, scope.tenantId, async (tx) => {
      const grants = await grantsOf(tx, principal);
      grants.assertMayGrant(body.roles);
      // The new invitation supersedes the pending one: that is revoking it, under the same rule.
      const pending = await findPendingInvitationFor(tx, scope, email);
      if (pending) grants.assertMayManage(pending.roles, 'invitation');
      const invitation = await insertInvitation(tx, scope, {
        email,
        roles: body.roles as RoleCode[],
        delivery,
        tokenHash: sha256(token),
        invitedBy: principal.membershipId,
        ttlSeconds: INVITATION_TTL_SECONDS,
      });
      const auditEventId = await recordCallerEvent(tx, principal, ctx, {
        action: 'users.invitation.created',
        subjectType: 'INVITATION',
        subjectId: invitation.id,
        details: `${email}; ${body.roles.join(', ')}; ${delivery}`,
      });
      const startId =
        delivery === 'EMAIL'
          ? await enqueueInvitationMail(tx, scope.tenantId, invitation.id, ctx, auditEventId)
          : null;
      return { ...invitation, startId };
    });
    if (created.startId) await deps.workflows.dispatch({ id: created.startId });
    return { invitationId: created.id, expiresAt: created.expiresAt.toISOString(), token: delivery === 'MANUAL' ? token : null };
  }

  async function revokeInvitation(principal: Principal, invitationId: string, ctx: RequestContext): Promise<void> {
    const scope = { tenantId: principal.tenantId };
    await withTenant(db, scope.tenantId, async (tx) => {
      const invitation = await findInvitation(tx, scope, { id: invitationId }, { lock: true });
      if (!invitation) throw new AppError('not-found', 'No invitation with this id in your workspace');
      (await grantsOf(tx, principal)).assertMayManage(invitation.roles, 'invitation');
      if (!(await revokeRow(tx, scope, invitationId))) throw new AppError('conflict', 'The invitation is no longer pending');
      await recordCallerEvent(tx, principal, ctx, { action: 'users.invitation.revoked', subjectType: 'INVITATION', subjectId: invitationId, details: invitation.email });
    });
  }

  /** Records the start of mailInvitationWorkflow in `tx`: once per invitation (its id is the invitation's). */
  function enqueueInvitationMail(tx: Tx, tenantId: string, invitationId: string, ctx: RequestContext, auditEventId?: string): Promise<string> {
    return deps.workflows.enqueue<MailInvitationWorkflow>(tx, MAIL_INVITATION_WORKFLOW, {
      workflowId: mailInvitationWorkflowId(invitationId),
      args: [{ tenantId, invitationId, correlationId: ctx.correlationId, ...(auditEventId ? { auditEventId } : {}) }],
      tenantId,
      idReusePolicy: 'REJECT_DUPLICATE',
    });
  }

  /**
   * Starts the invitation mail for an invitation whose token was handed to the inviter: the address's
   * reader joins from the mailed link. Once per invitation (mailInvitationWorkflow's id is the invitation's).
   */
  async function mailJoinLink(tenantId: string, invitationId: string, ctx: RequestContext): Promise<void> {
    const startId = await withTenant(db, tenantId, (tx) => enqueueInvitationMail(tx, tenantId, invitationId, ctx));
    await deps.workflows.dispatch({ id: startId });
  }

  async function acceptInvitation(body: Schemas['AcceptRequest'], ctx: RequestContext): Promise<AcceptOutcome> {
    assertPasswordWithinBytes('password', body.password);
    if (ctx.host.kind !== 'tenant') throw new AppError('not-found', 'Accept an invitation on the inviting workspace\'s host');
    const tenantId = await tenantIdBySlug(db, ctx.host.slug);
    if (!tenantId) throw new AppError('not-found', 'No workspace answers at this host');
    // Before any lookup or hash: per client IP and per token.
    await deps.limits.consume('invitationAccept', { ip: ctx.ipAddress, target: body.token });
    const scope = { tenantId };
    const invitation = await withTenant(db, tenantId, (tx) => findInvitation(tx, scope, { tokenHash: sha256(body.token) }));
    if (!invitation?.pending) throw new AppError('invitation-invalid');

    // A wrong password here is a stranger's as often as the owner's: it counts against this address's
    // failures for the email (the login protection), never against the identity's second-factor attempts.
    const who = { email: invitation.email, ip: ctx.ipAddress };
    const attempt = await deps.guard.check(who);
    const identity = await findIdentityByEmail(db, invitation.email);
    let passwordHash: string | null = null;
    if (identity) {
      // The current password, never replaced.
      if (!(await deps.hasher.verify(body.password, identity.passwordHash, ctx.ipAddress))) {
        await attempt.fail();
        throw notAuthenticated();
      }
      await attempt.succeed();
    } else if (invitation.mailboxProven) {
      // The mailed token: its holder reads the mailbox, so a new identity may be created with this password.
      assertNewPassword(body.password, body.password, NEW_IDENTITY_PASSWORD_MIN_CHARACTERS);
      passwordHash = await deps.hasher.hash(body.password, ctx.ipAddress);
    } else {
      // A token handed to the inviter proves nothing about the mailbox: no identity is created from it. The
      // answer is the one a wrong password of an existing identity gets (same status, body and hash cost),
      // and the address is mailed its own link, from which its reader joins.
      await deps.hasher.verify(body.password, null, ctx.ipAddress);
      await attempt.fail();
      if (!invitation.mailedAt) await mailJoinLink(tenantId, invitation.id, ctx);
      throw notAuthenticated();
    }

    const workflowId = acceptInvitationWorkflowId(invitation.id);
    const { acceptanceId, startId } = await withTenant(db, tenantId, async (tx) => {
      const acceptance = await recordAcceptance(tx, scope, {
        invitationId: invitation.id,
        existingIdentityId: identity?.id ?? null,
        passwordHash,
        mailboxProven: invitation.mailboxProven,
        correlationId: ctx.correlationId,
        ipAddress: ctx.ipAddress,
      });
      const start = await deps.workflows.enqueue<AcceptInvitationWorkflow>(tx, ACCEPT_INVITATION_WORKFLOW, {
        workflowId,
        args: [{ tenantId, invitationId: invitation.id, acceptanceId: acceptance, correlationId: ctx.correlationId }],
        tenantId,
        // One run per invitation: of simultaneous accepts exactly one starts; a failed run may be retried.
        idReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      });
      return { acceptanceId: acceptance, startId: start };
    });
    const result = await deps.workflows.awaitStarted<AcceptInvitationWorkflow>(startId, workflowId, {
      lost: () => new AppError('invitation-invalid'),
      pending: 'The acceptance is recorded and completes as soon as the workflow service is back; then log in on this host',
      release: () => withTenant(db, tenantId, (tx) => scrubAcceptance(tx, scope, acceptanceId)),
    });
    return deps.signIn.sessionOrChallenge(identity, { tenantId, membershipId: result.membershipId, identityId: result.identityId }, ctx);
  }

  return { createInvitation, revokeInvitation, acceptInvitation };
}
