import { defineQuery, defineUpdate } from '@temporalio/workflow';

// The email-challenge workflow's input and messages, shared by the workflow and the API that talks to it.

export type EmailChallengePurpose = 'LOGIN' | 'ENABLE_EMAIL_FACTOR' | 'DISABLE_EMAIL_FACTOR';

export interface EmailChallengeInput {
  challengeId: string;
  identityId: string;
  tenantId: string;
  purpose: EmailChallengePurpose;
  expiresAt: string;
  maxGuesses: number;
  correlationId: string;
}

/** What a verifier sends: who asks, for what, and a keyed MAC of the typed code (never the code). */
export interface VerifyCodeRequest {
  identityId: string;
  tenantId: string;
  purpose: EmailChallengePurpose;
  codeMac: string;
}

export type VerifyCodeResult = 'VERIFIED' | 'WRONG_CODE' | 'GUESSES_EXHAUSTED' | 'EXPIRED' | 'ALREADY_USED';
export type EmailChallengeOutcome = 'VERIFIED' | 'GUESSES_EXHAUSTED' | 'EXPIRED';

export const verifyCodeUpdate = defineUpdate<VerifyCodeResult, [VerifyCodeRequest]>('verifyCode');
export const challengeStateQuery = defineQuery<{ guesses: number; outcome: EmailChallengeOutcome | null }>('state');
