import { defineQuery, defineUpdate } from '@temporalio/workflow';

// The identity workflows' contracts: names, inputs, outputs, messages and the activities they call.
// Imported by the API (which starts and talks to the workflows), the workflows and the activities.
// Inputs and outputs carry ids only: no password, proof, code or hash ever enters workflow history.

// ── registration proof: mails a one-time proof for an email ────────────────────────────────────────
export const REGISTRATION_PROOF_WORKFLOW = 'registrationProofWorkflow';

export interface RegistrationProofInput {
  proofId: string;
  email: string;
  correlationId: string;
}
export type RegistrationProofResult = { mailed: boolean };
export type RegistrationProofWorkflow = (input: RegistrationProofInput) => Promise<RegistrationProofResult>;

// ── registration: turns a proof into an identity and a workspace ───────────────────────────────────
export const REGISTRATION_WORKFLOW = 'registrationWorkflow';

export interface RegistrationInput {
  proofId: string;
  attemptId: string;
  correlationId: string;
}
export interface RegistrationResult {
  tenantId: string;
  legalEntityId: string;
  identityId: string;
  userId: string;
  membershipId: string;
  slug: string;
}
export type RegistrationWorkflow = (input: RegistrationInput) => Promise<RegistrationResult>;

export interface RegistrationActivities {
  issueRegistrationProof(input: RegistrationProofInput): Promise<RegistrationProofResult>;
  completeRegistration(input: RegistrationInput): Promise<RegistrationResult>;
}

// ── password reset proof: mails a one-time reset link to an identity's address ─────────────────────────
export const PASSWORD_RESET_PROOF_WORKFLOW = 'passwordResetProofWorkflow';

export interface PasswordResetProofInput {
  proofId: string;
  email: string;
  correlationId: string;
}
export type PasswordResetProofResult = { mailed: boolean };
export type PasswordResetProofWorkflow = (input: PasswordResetProofInput) => Promise<PasswordResetProofResult>;

export interface PasswordResetActivities {
  issuePasswordResetProof(input: PasswordResetProofInput): Promise<PasswordResetProofResult>;
}

// ── email challenge: one emailed second-factor code ───────────────────────────────────────────────
export const EMAIL_CHALLENGE_WORKFLOW = 'emailChallengeWorkflow';

export type EmailChallengePurpose = 'LOGIN' | 'STEP_UP' | 'ENABLE_EMAIL_FACTOR' | 'DISABLE_EMAIL_FACTOR' | 'PASSWORD_RESET';

export interface EmailChallengeInput {
  challengeId: string;
  identityId: string;
  /** The workspace the code is for; null for a password reset, which belongs to the identity alone. */
  tenantId: string | null;
  purpose: EmailChallengePurpose;
  expiresAt: string;
  maxGuesses: number;
  correlationId: string;
}
export type EmailChallengeOutcome = 'VERIFIED' | 'GUESSES_EXHAUSTED' | 'EXPIRED';
export type EmailChallengeWorkflow = (input: EmailChallengeInput) => Promise<EmailChallengeOutcome>;

/** What a verifier sends: who asks, for what, and a keyed MAC of the typed code (never the code). */
export interface VerifyCodeRequest {
  identityId: string;
  tenantId: string | null;
  purpose: EmailChallengePurpose;
  codeMac: string;
}
export type VerifyCodeResult = 'VERIFIED' | 'WRONG_CODE' | 'GUESSES_EXHAUSTED' | 'EXPIRED' | 'ALREADY_USED';

export const verifyCodeUpdate = defineUpdate<VerifyCodeResult, [VerifyCodeRequest]>('verifyCode');
export const challengeStateQuery = defineQuery<{ guesses: number; outcome: EmailChallengeOutcome | null }>('state');

export interface EmailChallengeActivities {
  /** Mails the challenge's code and answers only its keyed MAC. */
  mailEmailChallengeCode(input: { challengeId: string; identityId: string; purpose: EmailChallengePurpose; correlationId: string }): Promise<string>;
  forgetEmailChallengeCode(input: { challengeId: string }): Promise<void>;
}

// ── invitations: mailing one, and accepting it into a membership ────────────────────────────────────
export const INVITATION_MAIL_WORKFLOW = 'invitationMailWorkflow';
export const INVITATION_WORKFLOW = 'invitationWorkflow';

export interface InvitationMailInput {
  tenantId: string;
  invitationId: string;
  correlationId: string;
  /** The `users.invitation.created` event: its deliveryState follows the mail (absent in runs started before it existed). */
  auditEventId?: string;
}
export type InvitationMailWorkflow = (input: InvitationMailInput) => Promise<{ mailed: boolean }>;

export interface InvitationInput {
  tenantId: string;
  invitationId: string;
  acceptanceId: string;
  correlationId: string;
}
export interface InvitationResult {
  tenantId: string;
  identityId: string;
  membershipId: string;
}
export type InvitationWorkflow = (input: InvitationInput) => Promise<InvitationResult>;

export interface InvitationActivities {
  /** Draws the invitation's token (stored as a hash) and mails it; once mailed, a retry does nothing. */
  mailInvitation(input: InvitationMailInput): Promise<{ mailed: boolean }>;
  /** Consumes the invitation and creates identity (if new), membership, roles and audit event in one commit. */
  acceptInvitation(input: InvitationInput): Promise<InvitationResult>;
}
