import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { createRegistrationActivities } from '../activities/registration';
import { TENANT_ID } from './search-attributes';

const { completeRegistration } = proxyActivities<ReturnType<typeof createRegistrationActivities>>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 8 },
});

export interface RegistrationInput {
  proofId: string;
  attemptId: string;
  correlationId: string;
}

export interface RegistrationResult {
  tenantId: string;
  legalEntityId: string;
  identityId: string;
  userId: string;
  membershipId: string;
  slug: string;
}

/**
 * Turns a registration proof into a workspace. Input and output carry ids only: the password hash waits
 * in the attempt row, which the activity reads and scrubs.
 */
export async function registrationWorkflow(input: RegistrationInput): Promise<RegistrationResult> {
  const result = await completeRegistration(input);
  upsertSearchAttributes([{ key: TENANT_ID, value: result.tenantId }]);
  return result;
}
