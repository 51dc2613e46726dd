import { selectRows, type Db } from '../../connection';

/** One round trip to PostgreSQL, for the readiness check. */
export async function pingDatabase(db: Db): Promise<void> {
  await selectRows(db, 'SELECT 1');
}
