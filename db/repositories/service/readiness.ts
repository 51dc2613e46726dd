import { selectRows, type Db } from '../../connection';

/** One round trip to PostgreSQL, for the readiness check (getHealth). Raw SQL: it reads no table. */
export async function pingDatabase(db: Db): Promise<void> {
  await selectRows(db, 'SELECT 1');
}
