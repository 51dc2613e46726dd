import { proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import { PRUNE_KINDS, type HousekeepingActivities, type HousekeepingInput, type HousekeepingResult, type PruneKind } from '../../contracts/housekeeping';

const { pruneExpired } = proxyActivities<HousekeepingActivities>(activityProfiles.pruneBatches);

/**
 * Deletes what has served its purpose, one kind after the other (each an activity, visible in the
 * Temporal UI), and reports the counts. Run by the `housekeeping` Schedule, never two at once.
 */
export async function housekeepingWorkflow(input: HousekeepingInput): Promise<HousekeepingResult> {
  const pruned = {} as Record<PruneKind, number>;
  const leftOver: PruneKind[] = [];
  for (const kind of PRUNE_KINDS) {
    const result = await pruneExpired({ ...input, kind });
    pruned[kind] = result.deleted;
    if (!result.complete) leftOver.push(kind);
  }
  return { pruned, leftOver };
}
