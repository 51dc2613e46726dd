import { proxyActivities } from '@temporalio/workflow';
import { PRUNE_KINDS, type HousekeepingActivities, type HousekeepingInput, type HousekeepingResult, type PruneKind } from '../../contracts/housekeeping';

const { pruneExpired } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '10 minutes',
  // Each batch heartbeats: a worker that died mid-kind is noticed in a minute, and the retry goes on.
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

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
