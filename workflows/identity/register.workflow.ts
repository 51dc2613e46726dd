import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import type { RegisterActivities, RegisterInput, RegisterResult } from '../../contracts/identity';
import { TENANT_ID } from '../../contracts/search-attributes';

const { createRegisteredWorkspace } = proxyActivities<RegisterActivities>(activityProfiles.awaitedTransaction);

/**
 * Started by register (workflow register-<magicLinkId>): turns a magic link into a workspace. Input and
 * output carry ids only: the password hash waits in the attempt row, which the activity reads and scrubs.
 */
export async function registerWorkflow(input: RegisterInput): Promise<RegisterResult> {
  const result = await createRegisteredWorkspace(input);
  upsertSearchAttributes([{ key: TENANT_ID, value: result.tenantId }]);
  return result;
}
