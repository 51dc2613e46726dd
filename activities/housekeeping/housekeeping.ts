import { Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../../runtime/logger';
import type { HousekeepingActivities } from '../../contracts/housekeeping';
import { pruneBatch } from '../../db/repositories/housekeeping/prune';

export interface HousekeepingDeps {
  db: Sequelize;
  logger: Logger;
}

/** The activities of housekeepingWorkflow (run by the `housekeeping` Schedule). */
export function createHousekeepingActivities({ db, logger }: HousekeepingDeps): HousekeepingActivities {
  const log = logger.child({ component: 'housekeeping' });
  return {
    /**
     * Deletes one kind's expired rows in batches, each its own short statement, so no lock is held long and
     * a retry after a crash simply goes on. Stops at the first short batch or at the batch budget.
     */
    async pruneExpired({ kind, batchSize, maxBatches }) {
      let deleted = 0;
      let batches = 0;
      let complete = false;
      while (batches < maxBatches) {
        const n = await pruneBatch(db, kind, batchSize);
        batches += 1;
        deleted += n;
        Context.current().heartbeat({ deleted, batches });
        if (n < batchSize) {
          complete = true;
          break;
        }
      }
      if (deleted > 0 || !complete) log.info('housekeeping pruned', { kind, deleted, batches, complete });
      return { kind, deleted, batches, complete };
    },
  };
}
