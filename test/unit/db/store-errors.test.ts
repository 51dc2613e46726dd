import { DataTypes, DatabaseError, type Sequelize } from 'sequelize';
import { createSequelize, execute, readInTenant, selectBatch, selectRows, transactionOf, withTenant } from '../../../db/connection';
import { DuplicateRowError, LedgerRuleError, NumberOutOfRangeError, translateStoreError } from '../../../db/repositories/errors';
import { isDatabaseUnavailable } from '../../../db/unavailable';

// What the database refuses reaches the code above db/ as the typed errors of db/repositories/errors.ts,
// never as a SQLSTATE: from a statement, a batch, a read, and from a tenant transaction's opening, its
// model calls and its COMMIT (where deferred constraint triggers fire). Run against a stand-in for a pg
// connection that fails the statements it is told to, with PostgreSQL's error fields.

const TENANT = '0f7f3608-04a8-4028-8147-9b397bbabce5';

interface Refusal {
  code: string;
  constraint?: string;
}

/** A pg connection stand-in on `db`'s pool: answers no rows, and fails a statement matching `fail` with `refusal`. */
function fakePostgres(db: Sequelize, fail: RegExp, refusal: Refusal) {
  const sent: string[] = [];
  const connection = {
    query(sql: string, ...rest: unknown[]) {
      const callback = rest[rest.length - 1] as (err: Error | null, result?: unknown) => void;
      sent.push(sql);
      if (fail.test(sql)) return callback(Object.assign(new Error(`refused (${refusal.code})`), refusal));
      const results = sql.split(';\n').map((statement) => ({ command: statement.split(' ')[0], rows: [], rowCount: 0 }));
      return callback(null, results.length === 1 ? results[0] : results);
    },
  };
  jest.spyOn(db.connectionManager, 'getConnection').mockResolvedValue(connection);
  jest.spyOn(db.connectionManager, 'releaseConnection').mockImplementation(() => undefined);
  jest.spyOn(db.connectionManager, 'destroyConnection').mockResolvedValue(undefined);
  return { sent };
}

let db: Sequelize;
beforeEach(() => {
  db = createSequelize('postgres://nobody:nothing@127.0.0.1:9/none');
});
afterEach(async () => {
  jest.restoreAllMocks();
  await db.close();
});

const UNIQUE: Refusal = { code: '23505', constraint: 'journal_entries_request_key' };

describe('selectRows and execute', () => {
  test.each<[string, Refusal, (err: unknown) => void]>([
    ['a unique key (23505)', UNIQUE, (err) => expect(err).toMatchObject({ name: 'DuplicateRowError', constraint: 'journal_entries_request_key' })],
    ['a number out of range (22003)', { code: '22003' }, (err) => expect(err).toBeInstanceOf(NumberOutOfRangeError)],
    ['the ledger cut-off (P0C10)', { code: 'P0C10' }, (err) => expect(err).toMatchObject({ name: 'LedgerRuleError', rule: 'period-closed' })],
    ['a header account (P0C12)', { code: 'P0C12' }, (err) => expect(err).toMatchObject({ name: 'LedgerRuleError', rule: 'header-account' })],
  ])('when the database refuses a statement for %s, then the typed error is thrown, the database\'s error as its cause', async (_what, refusal, check) => {
    fakePostgres(db, /^INSERT/, refusal);
    for (const run of [() => selectRows(db, 'INSERT INTO t VALUES (:a) RETURNING a', { a: 1 }), () => execute(db, 'INSERT INTO t VALUES (:a)', { a: 1 })]) {
      const err = await run().catch((e: unknown) => e);
      check(err);
      expect((err as Error).cause).toBeInstanceOf(Error);
    }
  });

  test('when the database fails a statement for another reason, then its error reaches the caller as it was', async () => {
    fakePostgres(db, /^SELECT/, { code: '23514' });
    const err = await selectRows(db, 'SELECT 1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseError);
    expect(((err as DatabaseError).original as { code?: string }).code).toBe('23514');
  });

  test('when the database is shutting down under a statement, then it is still recognised as unavailable', async () => {
    fakePostgres(db, /^SELECT/, { code: '57P01' });
    const err = await selectRows(db, 'SELECT 1').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
  });
});

describe('selectBatch and readInTenant', () => {
  test('when a batched statement is refused, then the typed error is thrown', async () => {
    fakePostgres(db, /INSERT INTO journal_lines/, { code: 'P0C12' });
    const err = await withTenant(db, TENANT, (tx) => selectBatch(tx, [{ sql: 'SELECT 1' }, { sql: 'INSERT INTO journal_lines VALUES (1)' }])).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'LedgerRuleError', rule: 'header-account' });
  });

  test('when a read in one round trip is refused, then the typed error is thrown', async () => {
    fakePostgres(db, /^SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY/, { code: '22003' });
    await expect(readInTenant(db, TENANT, [{ sql: 'SELECT 1' }])).rejects.toBeInstanceOf(NumberOutOfRangeError);
  });
});

describe('withTenant', () => {
  test('when a deferred constraint trigger refuses the COMMIT, then the typed error reaches the caller', async () => {
    const pg = fakePostgres(db, /^COMMIT/, { code: 'P0C10' });
    const err = await withTenant(db, TENANT, () => Promise.resolve('done')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerRuleError);
    expect((err as LedgerRuleError).rule).toBe('period-closed');
    expect(pg.sent[pg.sent.length - 1]).toBe('COMMIT;');
  });

  test('when a model call in the work is refused, then the typed error reaches the caller, after the rollback', async () => {
    const pg = fakePostgres(db, /^INSERT INTO "probes"/, UNIQUE);
    const Probe = db.define('Probe', { id: { type: DataTypes.INTEGER, primaryKey: true } }, { tableName: 'probes', timestamps: false });
    const err = await withTenant(db, TENANT, (tx) => Probe.create({ id: 1 }, { transaction: transactionOf(tx) })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateRowError);
    expect(pg.sent[pg.sent.length - 1]).toBe('ROLLBACK;');
  });

  test('when the opening\'s first statements are refused, then the typed error reaches the caller and the work does not run', async () => {
    fakePostgres(db, /^START TRANSACTION/, UNIQUE);
    const work = jest.fn();
    await expect(withTenant(db, TENANT, work, [{ sql: 'SELECT 1' }])).rejects.toBeInstanceOf(DuplicateRowError);
    expect(work).not.toHaveBeenCalled();
  });

  test('when the work throws an error of its own, then it reaches the caller unchanged', async () => {
    fakePostgres(db, /^$/, UNIQUE);
    const own = new Error('the work failed');
    await expect(withTenant(db, TENANT, () => Promise.reject(own))).rejects.toBe(own);
  });
});

describe('translateStoreError', () => {
  test('when an error is translated twice, then the second time changes nothing', () => {
    const typed = new LedgerRuleError('period-closed');
    expect(translateStoreError(typed)).toBe(typed);
  });
});
