import { selectRows, type Db } from '../../connection';
import type { PruneKind } from '../../../contracts/housekeeping';

// Serves housekeepingWorkflow's activity (run by the `housekeeping` Schedule).

/** One bounded delete of one kind (the definer's app_prune, which holds the retention rules). */
export async function pruneBatch(db: Db, kind: PruneKind, limit: number): Promise<number> {
  const [row] = await selectRows<{ deleted: number }>(db, 'SELECT app_prune(:kind, :limit) AS deleted', { kind, limit });
  return Number(row!.deleted);
}
