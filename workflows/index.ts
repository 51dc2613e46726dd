export { registrationProofWorkflow } from './registration-proof.workflow';
export { registrationWorkflow } from './registration.workflow';
