// The organisation workflows' contracts: mailing an invitation and accepting one into a membership.
// Imported by the API (which starts the workflows), the workflows and the activities. Inputs and outputs
// carry ids only: no token, password or hash ever enters workflow history.

// ── mailInvitation: mails an invitation (started by createInvitation and acceptInvitation) ─────────────
export const MAIL_INVITATION_WORKFLOW = 'mailInvitationWorkflow';

export interface MailInvitationInput {
  tenantId: string;
  invitationId: string;
  correlationId: string;
  /** The `users.invitation.created` event: its deliveryState follows the mail (absent in runs started before it existed). */
  auditEventId?: string;
}
export type MailInvitationResult = { mailed: boolean };
export type MailInvitationWorkflow = (input: MailInvitationInput) => Promise<MailInvitationResult>;

export interface MailInvitationActivities {
  /** Draws the invitation's token (stored as a hash) and mails it; once mailed, a retry does nothing. */
  mailInvitation(input: MailInvitationInput): Promise<MailInvitationResult>;
}

// ── acceptInvitation: accepts an invitation into a membership ──────────────────────────────────────────
export const ACCEPT_INVITATION_WORKFLOW = 'acceptInvitationWorkflow';

export interface AcceptInvitationInput {
  tenantId: string;
  invitationId: string;
  acceptanceId: string;
  correlationId: string;
}
export interface AcceptInvitationResult {
  tenantId: string;
  identityId: string;
  membershipId: string;
}
export type AcceptInvitationWorkflow = (input: AcceptInvitationInput) => Promise<AcceptInvitationResult>;

export interface AcceptInvitationActivities {
  /** Consumes the invitation and creates identity (if new), membership, roles and audit event in one commit. */
  acceptInvitation(input: AcceptInvitationInput): Promise<AcceptInvitationResult>;
}
