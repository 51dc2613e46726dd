import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import { findInvitation, markMailed, setMailedToken } from '../../db/repositories/organisation/invitations';
import { tenantSlug } from '../../db/repositories/organisation/workspaces';
import { newOpaqueToken, sha256 } from '../../core/identity/secrets';
import type { Mailer } from '../../core/mail/mail';
import { sendRecordedMail } from '../mail/send-mail';
import type { MailInvitationActivities, MailInvitationInput, MailInvitationResult } from '../../contracts/organisation';

export interface MailInvitationDeps {
  db: Sequelize;
  mailer: Mailer;
  publicUrl: string;
  baseDomain: string;
}

/** The activities of mailInvitationWorkflow (started by createInvitation and acceptInvitation). */
export function createMailInvitationActivities(deps: MailInvitationDeps): MailInvitationActivities {
  const { db } = deps;

  async function mailInvitation(input: MailInvitationInput): Promise<MailInvitationResult> {
    const scope = { tenantId: input.tenantId };
    const token = newOpaqueToken();
    const target = await withTenant(db, input.tenantId, async (tx) => {
      const invitation = await findInvitation(tx, scope, { id: input.invitationId }, { lock: true });
      if (!invitation || invitation.mailedAt || !invitation.pending) return null;
      await setMailedToken(tx, scope, { invitationId: input.invitationId, tokenHash: sha256(token) });
      return { email: invitation.email, slug: await tenantSlug(tx, scope) };
    });
    if (!target) return { mailed: false };
    const url = new URL(deps.publicUrl);
    url.hostname = `${target.slug}.${deps.baseDomain}`;
    await sendRecordedMail(
      deps,
      {
        key: `invitation:${input.invitationId}`,
        purpose: 'INVITATION',
        audit: input.auditEventId ? { tenantId: input.tenantId, eventId: input.auditEventId } : null,
      },
      {
        to: target.email,
        subject: 'You are invited to a workspace',
        text: [
          `You are invited to the workspace ${target.slug}. Accept within seven days:`,
          `${url.origin}/invitations/accept?invitation=${token}`,
          '',
          `Or send invitation=${token} to POST ${url.origin}/api/v1/auth/membership-invitations/accept with your password.`,
        ].join('\n'),
      },
    );
    await withTenant(db, input.tenantId, (tx) => markMailed(tx, scope, input.invitationId));
    return { mailed: true };
  }

  return { mailInvitation };
}
