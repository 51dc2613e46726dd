import { proxyActivities } from '@temporalio/workflow';
import type { createRegistrationActivities } from '../activities/registration';

const { issueRegistrationProof } = proxyActivities<ReturnType<typeof createRegistrationActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export interface RegistrationProofInput {
  proofId: string;
  email: string;
  correlationId: string;
}

/**
 * Issues a registration proof and mails it. The proof itself is generated, stored as a hash and mailed
 * inside one activity, so it never appears in this workflow's history.
 */
export async function registrationProofWorkflow(input: RegistrationProofInput): Promise<{ mailed: boolean }> {
  return issueRegistrationProof(input);
}
