import { defineQuery, defineUpdate } from '@temporalio/workflow';

// The identity workflows' contracts: names, inputs, outputs, messages and the activities they call.
// Imported by the API (which starts and talks to the workflows), the workflows and the activities.
// Inputs and outputs carry ids only: no password, link token, code or hash ever enters workflow history.

// ── requestMagicLink: mails a one-time registration link (a magic link) for an email ──────────────────
export const REQUEST_MAGIC_LINK_WORKFLOW = 'requestMagicLinkWorkflow';

export interface RequestMagicLinkInput {
  magicLinkId: string;
  email: string;
  correlationId: string;
}
export type RequestMagicLinkResult = { mailed: boolean };
export type RequestMagicLinkWorkflow = (input: RequestMagicLinkInput) => Promise<RequestMagicLinkResult>;

export interface RequestMagicLinkActivities {
  mailMagicLink(input: RequestMagicLinkInput): Promise<RequestMagicLinkResult>;
}

// ── register: turns a magic link into an identity and a workspace ─────────────────────────────────────
export const REGISTER_WORKFLOW = 'registerWorkflow';

export interface RegisterInput {
  magicLinkId: string;
  attemptId: string;
  correlationId: string;
}
export interface RegisterResult {
  tenantId: string;
  legalEntityId: string;
  identityId: string;
  userId: string;
  membershipId: string;
  slug: string;
}
export type RegisterWorkflow = (input: RegisterInput) => Promise<RegisterResult>;

export interface RegisterActivities {
  createRegisteredWorkspace(input: RegisterInput): Promise<RegisterResult>;
}

// ── requestPasswordReset: mails a one-time reset link (a magic link) to an identity's address ──────────
export const REQUEST_PASSWORD_RESET_WORKFLOW = 'requestPasswordResetWorkflow';

export interface RequestPasswordResetInput {
  magicLinkId: string;
  email: string;
  correlationId: string;
}
export type RequestPasswordResetResult = { mailed: boolean };
export type RequestPasswordResetWorkflow = (input: RequestPasswordResetInput) => Promise<RequestPasswordResetResult>;

export interface RequestPasswordResetActivities {
  mailPasswordResetLink(input: RequestPasswordResetInput): Promise<RequestPasswordResetResult>;
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
