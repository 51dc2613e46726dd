// Every workflow the worker registers. Workflows import only contracts/ and the workflow SDK.
export { registrationProofWorkflow } from './identity/registration-proof.workflow';
export { registrationWorkflow } from './identity/registration.workflow';
export { passwordResetProofWorkflow } from './identity/password-reset-proof.workflow';
export { emailChallengeWorkflow } from './identity/email-challenge.workflow';
export { periodCloseWorkflow } from './ledger/period-close.workflow';
export { invitationMailWorkflow, invitationWorkflow } from './identity/invitation.workflow';
export { ratesRefreshWorkflow } from './rates/rates-refresh.workflow';
export { pushFanoutWorkflow } from './notifications/push-fanout.workflow';
export { housekeepingWorkflow } from './housekeeping/housekeeping.workflow';
