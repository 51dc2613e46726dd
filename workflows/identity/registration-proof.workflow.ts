import { proxyActivities } from '@temporalio/workflow';
import type { RegistrationActivities, RegistrationProofInput, RegistrationProofResult } from '../../contracts/identity';

const { issueRegistrationProof } = proxyActivities<RegistrationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/**
 * Issues a registration proof and mails it. The proof itself is generated, stored as a hash and mailed
 * inside one activity, so it never appears in this workflow's history.
 */
export async function registrationProofWorkflow(input: RegistrationProofInput): Promise<RegistrationProofResult> {
  return issueRegistrationProof(input);
}
