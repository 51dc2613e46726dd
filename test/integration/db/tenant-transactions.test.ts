import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize, readInTenant, selectRows, withTenant } from '../../../db/connection';
import { loadTestConfig } from '../../helpers/stack';

// One connection in the pool, so every call below reuses the connection the previous one left behind.
let db: Sequelize;
let observer: Sequelize;
beforeAll(() => {
  const config = loadTestConfig();
  db = createSequelize(config.database.url, { poolMax: 1 });
  observer = createSequelize(config.database.url, { poolMax: 1 });
});
afterAll(async () => {
  await db.close();
  await observer.close();
});

const TENANT = randomUUID();
const SETTING = "SELECT current_setting('app.tenant_id', true) AS tenant, current_setting('transaction_read_only') AS read_only, pg_backend_pid() AS pid";

/** What the pooled connection carries now: its tenant setting, and its state as PostgreSQL reports it. */
async function leftBehind(): Promise<{ tenant: string | null; state: string }> {
  const [{ tenant, pid }] = await selectRows<{ tenant: string | null; pid: number }>(db, SETTING);
  const [{ state }] = await observer.query<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = :pid', { replacements: { pid }, type: QueryTypes.SELECT });
  return { tenant: tenant || null, state };
}

describe('readInTenant', () => {
  test('when the statements are read, then they see the tenant in a read-only transaction that has ended when the call returns', async () => {
    const [[row], [two]] = await readInTenant(db, TENANT, [{ sql: SETTING }, { sql: 'SELECT :n::int AS n', replacements: { n: 2 } }]);
    expect(row).toMatchObject({ tenant: TENANT, read_only: 'on' });
    expect(two).toEqual({ n: 2 });
    expect(await leftBehind()).toEqual({ tenant: null, state: 'idle' });
  });

  test('when a statement writes, then PostgreSQL refuses it as a write in a read-only transaction', async () => {
    await expect(readInTenant(db, TENANT, [{ sql: 'CREATE TEMP TABLE read_only_probe (a int)' }])).rejects.toThrow(/read-only transaction/);
    expect(await leftBehind()).toEqual({ tenant: null, state: 'idle' });
  });

  test('when a statement fails, then the error reaches the caller and the connection goes back clean', async () => {
    await expect(readInTenant(db, TENANT, [{ sql: SETTING }, { sql: 'SELECT 1 / 0' }])).rejects.toThrow(/division by zero/);
    expect(await leftBehind()).toEqual({ tenant: null, state: 'idle' });
  });
});

describe('withTenant', () => {
  test('when the work has run, then its statements and the opening ones saw the tenant, and the connection goes back without it', async () => {
    const seen = await withTenant(db, TENANT, async (tx, [opening]) => [opening![0], (await selectRows(tx, SETTING))[0]], [{ sql: SETTING }]);
    expect(seen).toEqual([expect.objectContaining({ tenant: TENANT, read_only: 'off' }), expect.objectContaining({ tenant: TENANT })]);
    expect(await leftBehind()).toEqual({ tenant: null, state: 'idle' });
  });

  test('when an opening statement fails, then the transaction is rolled back and the connection goes back clean', async () => {
    const work = jest.fn();
    await expect(withTenant(db, TENANT, work, [{ sql: 'SELECT 1 / 0' }])).rejects.toThrow(/division by zero/);
    expect(work).not.toHaveBeenCalled();
    expect(await leftBehind()).toEqual({ tenant: null, state: 'idle' });
  });

  test('when the work fails, then its writes are rolled back with it', async () => {
    await expect(
      withTenant(db, TENANT, async (tx) => {
        await selectRows(tx, 'CREATE TEMP TABLE rolled_back_probe (a int)');
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    await expect(selectRows(db, 'SELECT * FROM rolled_back_probe')).rejects.toThrow(/does not exist/);
    expect(await leftBehind()).toEqual({ tenant: null, state: 'idle' });
  });
});
