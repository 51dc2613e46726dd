// Every workflow the worker registers. Workflows import only contracts/ and the workflow SDK.
export { requestMagicLinkWorkflow } from './identity/request-magic-link.workflow';
export { registerWorkflow } from './identity/register.workflow';
export { requestPasswordResetWorkflow } from './identity/request-password-reset.workflow';
export { emailChallengeWorkflow } from './identity/email-challenge.workflow';
export { closePeriodWorkflow } from './ledger/close-period.workflow';
export { postRevaluationWorkflow } from './ledger/post-revaluation.workflow';
export { mailInvitationWorkflow } from './organisation/mail-invitation.workflow';
export { acceptInvitationWorkflow } from './organisation/accept-invitation.workflow';
export { refreshRatesWorkflow } from './rates/refresh-rates.workflow';
export { sendNotificationWorkflow } from './notifications/send-notification.workflow';
export { housekeepingWorkflow } from './housekeeping/housekeeping.workflow';
export { deliverWebhookWorkflow } from './webhooks/deliver-webhook.workflow';
export { importBankStatementWorkflow } from './bank-statements/import-bank-statement.workflow';
export { postDepreciationWorkflow } from './fixed-assets/post-depreciation.workflow';
