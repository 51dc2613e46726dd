import { selectRows, type Db } from '../../connection';
import type { PruneKind } from '../../../contracts/housekeeping';

// Serves housekeepingWorkflow's activity (run by the `housekeeping` Schedule).

/**
 * One bounded delete of one kind. Raw SQL: the security-definer function app_prune, which holds the
 * retention rules and crosses workspaces.
 */
export async function pruneBatch(db: Db, kind: PruneKind, limit: number): Promise<number> {
  const [row] = await selectRows<{ deleted: number }>(db, 'SELECT app_prune(:kind, :limit) AS deleted', { kind, limit });
  return Number(row!.deleted);
}
