// Every workflow id is made here from business keys, so a retried request can never start a second run
// and an operator can find a run in the Temporal UI by what it is about. A helper is named after its
// workflow (`<operationId>WorkflowId`) and its ids after the operation.

export const requestMagicLinkWorkflowId = (magicLinkId: string): string => `magic-link-${magicLinkId}`;
export const registerWorkflowId = (magicLinkId: string): string => `register-${magicLinkId}`;
export const requestPasswordResetWorkflowId = (magicLinkId: string): string => `password-reset-${magicLinkId}`;
export const emailChallengeWorkflowId = (challengeId: string): string => `email-challenge-${challengeId}`;
export const closePeriodWorkflowId = (legalEntityId: string, closeDate: string): string => `close-period-${legalEntityId}-${closeDate}`;
export const postRevaluationWorkflowId = (legalEntityId: string, revaluationDate: string): string => `revaluation-${legalEntityId}-${revaluationDate}`;
export const acceptInvitationWorkflowId = (invitationId: string): string => `accept-invitation-${invitationId}`;
export const mailInvitationWorkflowId = (invitationId: string): string => `mail-invitation-${invitationId}`;
export const sendNotificationWorkflowId = (tenantId: string, requestId: string): string => `send-notification-${tenantId}-${requestId}`;
export const deliverWebhookWorkflowId = (endpointId: string, eventId: string): string => `webhook-${endpointId}-${eventId}`;
export const importBankStatementWorkflowId = (bankAccountId: string, sha256: string): string => `bank-import-${bankAccountId}-${sha256}`;
export const postDepreciationWorkflowId = (legalEntityId: string, closeDate: string): string => `depreciation-${legalEntityId}-${closeDate}`;
