import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { RegistrationActivities, RegistrationInput, RegistrationResult } from '../../contracts/identity';
import { TENANT_ID } from '../../contracts/search-attributes';

const { completeRegistration } = proxyActivities<RegistrationActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 8 },
});

/**
 * Turns a registration proof into a workspace. Input and output carry ids only: the password hash waits
 * in the attempt row, which the activity reads and scrubs.
 */
export async function registrationWorkflow(input: RegistrationInput): Promise<RegistrationResult> {
  const result = await completeRegistration(input);
  upsertSearchAttributes([{ key: TENANT_ID, value: result.tenantId }]);
  return result;
}
