export { registrationProofWorkflow } from './registration-proof.workflow';
export { registrationWorkflow } from './registration.workflow';
export { emailChallengeWorkflow } from './email-challenge.workflow';
export { periodCloseWorkflow } from './period-close.workflow';
