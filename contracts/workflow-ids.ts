// Every workflow id is made here from business keys, so a retried request can never start a second run
// and an operator can find a run in the Temporal UI by what it is about.

export const registrationProofWorkflowId = (proofId: string): string => `registration-proof-${proofId}`;
export const passwordResetProofWorkflowId = (proofId: string): string => `password-reset-proof-${proofId}`;
export const registrationWorkflowId = (proofId: string): string => `registration-${proofId}`;
export const emailChallengeWorkflowId = (challengeId: string): string => `email-challenge-${challengeId}`;
export const periodCloseWorkflowId = (legalEntityId: string, closeDate: string): string => `period-close-${legalEntityId}-${closeDate}`;
export const invitationWorkflowId = (invitationId: string): string => `invitation-${invitationId}`;
export const invitationMailWorkflowId = (invitationId: string): string => `invitation-mail-${invitationId}`;
export const pushWorkflowId = (tenantId: string, requestId: string): string => `push-${tenantId}-${requestId}`;
