import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DataTypes, Transaction, type Sequelize } from 'sequelize';
import {
  createSequelize,
  inlineStatement,
  lateMarker,
  readInTenant,
  selectBatch,
  selectResults,
  selectRows,
  transactionOf,
  withTenant,
  type Statement,
} from '../../../db/connection';
import { auditEventStatement } from '../../../db/repositories/audit/events';
import { companyChartPageStatement } from '../../../db/repositories/accounting/chart-of-accounts';
import { companyStatement, firstCompanyStatement } from '../../../db/repositories/organisation/companies';
import { postJournalEntryStatement, postingContextStatement } from '../../../db/repositories/ledger/journal';

// withTenant's transaction is Sequelize's own, opened through two of its undocumented members: `begin`,
// which TenantTransaction replaces, and `prepareEnvironment`, which acquires the connection and calls it.
// These tests run the real Sequelize against a stand-in for a pg connection and fail when an upgrade
// changes that contract (e.g. START TRANSACTION goes out on its own again, or the work's statements
// leave the transaction's connection).

const TENANT = '0f7f3608-04a8-4028-8147-9b397bbabce5';
const COMPANY = 'd2d9a97b-1b55-4f21-abd3-c2b3a88c8c5f';

type Rows = Record<string, unknown>[];

/** A pg connection stand-in on `db`'s pool: records every query (one round trip each) and answers from `rows`. */
function fakePostgres(db: Sequelize, rows: (statement: string) => Rows = () => [], fail?: RegExp) {
  const sent: string[] = [];
  const connection = {
    query(sql: string, ...rest: unknown[]) {
      const callback = rest[rest.length - 1] as (err: Error | null, result?: unknown) => void;
      sent.push(sql);
      if (fail?.test(sql)) return callback(Object.assign(new Error('the statement failed'), { code: 'XX000' }));
      const results = sql.split(';\n').map((statement) => ({ command: statement.split(' ')[0], rows: rows(statement), rowCount: 0 }));
      return callback(null, results.length === 1 ? results[0] : results);
    },
  };
  const acquire = jest.spyOn(db.connectionManager, 'getConnection').mockResolvedValue(connection);
  const release = jest.spyOn(db.connectionManager, 'releaseConnection').mockImplementation(() => undefined);
  jest.spyOn(db.connectionManager, 'destroyConnection').mockResolvedValue(undefined);
  return { sent, acquire, release, connection };
}

let db: Sequelize;
beforeEach(() => {
  db = createSequelize('postgres://nobody:nothing@127.0.0.1:9/none');
});
afterEach(async () => {
  jest.restoreAllMocks();
  await db.close();
});

const companyCheck: Statement = companyStatement({ tenantId: TENANT, legalEntityId: COMPANY }, { forChange: true });

describe('the installed Sequelize', () => {
  test('when installed, then it is exactly the version package.json pins (an upgrade is a deliberate change that reruns these tests)', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const installed = (JSON.parse(readFileSync(require.resolve('sequelize/package.json'), 'utf8')) as { version: string }).version;
    expect(pkg.dependencies.sequelize).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed).toBe(pkg.dependencies.sequelize);
  });

  test('when a transaction is made, then it has the members the tenant transaction relies on', () => {
    const members = Transaction.prototype as unknown as Record<string, unknown>;
    expect(typeof members.prepareEnvironment).toBe('function');
    expect(typeof members.begin).toBe('function');
    expect((new Transaction(db, {}) as unknown as { sequelize: unknown }).sequelize).toBe(db);
  });
});

describe('withTenant', () => {
  test('when a transaction opens, then START TRANSACTION, the tenant setting and the first statements are one query, and the work, its models and COMMIT follow on that connection', async () => {
    const pg = fakePostgres(db, (statement) => (statement.startsWith('SELECT archived_at') ? [{ archived: false }] : []));
    const Probe = db.define('Probe', { id: { type: DataTypes.INTEGER, primaryKey: true } }, { tableName: 'probes' });
    let first: Rows[] = [];
    await withTenant(db, TENANT, async (tx, rows) => {
      first = rows;
      expect(pg.sent).toHaveLength(1);
      await selectRows(tx, 'SELECT :n AS n', { n: 1 });
      await Probe.findAll({ transaction: transactionOf(tx) });
    }, [companyCheck]);

    expect(pg.sent).toEqual([
      `START TRANSACTION;\nSELECT set_config('app.tenant_id', '${TENANT}', true);\n${inlineStatement(db, companyCheck)}`,
      'SELECT 1 AS n',
      'SELECT "id" FROM "probes" AS "Probe";',
      'COMMIT;',
    ]);
    expect(first).toEqual([[{ archived: false }]]);
    expect(pg.acquire).toHaveBeenCalledTimes(1);
    expect(pg.release).toHaveBeenCalledTimes(1);
    expect(pg.release).toHaveBeenCalledWith(pg.connection);
  });

  test('when the opening fails, then the transaction is rolled back, the connection released and the error reaches the caller', async () => {
    const pg = fakePostgres(db, () => [], /^START TRANSACTION/);
    const work = jest.fn();
    await expect(withTenant(db, TENANT, work, [companyCheck])).rejects.toThrow('the statement failed');
    expect(work).not.toHaveBeenCalled();
    expect(pg.sent).toEqual([expect.stringMatching(/^START TRANSACTION;\n/), 'ROLLBACK;']);
    expect(pg.release).toHaveBeenCalledTimes(1);
  });

  test('when the work fails, then ROLLBACK follows on the same connection, which is released', async () => {
    const pg = fakePostgres(db);
    await expect(withTenant(db, TENANT, async () => { throw new Error('the work failed'); })).rejects.toThrow('the work failed');
    expect(pg.sent).toEqual([`START TRANSACTION;\nSELECT set_config('app.tenant_id', '${TENANT}', true)`, 'ROLLBACK;']);
    expect(pg.release).toHaveBeenCalledTimes(1);
  });

  test('when the tenant id is not a UUID, then nothing is sent', async () => {
    const pg = fakePostgres(db);
    await expect(withTenant(db, "x', true); DROP TABLE t; --", async () => undefined)).rejects.toThrow(TypeError);
    expect(pg.sent).toEqual([]);
  });
});

describe('readInTenant', () => {
  test('when statements are read, then they go with a read-only transaction and the tenant setting as one query, and each statement\'s rows come back', async () => {
    const pg = fakePostgres(db, (statement) => (statement.startsWith('SELECT 2') ? [{ two: 2 }] : statement.startsWith('SELECT archived_at') ? [{ archived: true }] : []));
    const rows = await readInTenant(db, TENANT, [companyCheck, { sql: 'SELECT 2 AS two' }]);
    expect(pg.sent).toEqual([`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY;\nSELECT set_config('app.tenant_id', '${TENANT}', true);\n${inlineStatement(db, companyCheck)};\nSELECT 2 AS two`]);
    expect(rows).toEqual([[{ archived: true }], [{ two: 2 }]]);
    expect(pg.release).toHaveBeenCalledTimes(1);
  });
});

describe('selectBatch', () => {
  test('when statements are batched in a transaction, then they are one query on its connection', async () => {
    const pg = fakePostgres(db, (statement) => (statement.startsWith('INSERT') ? [{ id: 7 }] : []));
    const rows = await withTenant(db, TENANT, (tx) => selectBatch(tx, [{ sql: 'UPDATE t SET a = :a', replacements: { a: 'x' } }, { sql: 'INSERT INTO t VALUES (1) RETURNING id;' }]));
    expect(pg.sent[1]).toBe("UPDATE t SET a = 'x';\nINSERT INTO t VALUES (1) RETURNING id");
    expect(rows).toEqual([{ id: 7 }]);
    expect(pg.sent).toHaveLength(3);
  });
});

describe('selectResults', () => {
  test('when a batch starts with an INSERT, then each statement still answers its own rows (Sequelize would answer a row count)', async () => {
    const pg = fakePostgres(db, (statement) => (statement.includes('RETURNING id') ? [{ id: 7 }] : statement.includes('SELECT 2') ? [{ two: 2 }, { two: 3 }] : []));
    const results = await withTenant(db, TENANT, (tx) =>
      selectResults(tx, [{ sql: 'INSERT INTO t VALUES (:a) RETURNING id', replacements: { a: 'x' } }, { sql: 'UPDATE t SET a = 1' }, { sql: 'SELECT 2 AS two' }]),
    );
    expect(pg.sent[1]).toBe("/* batch */ INSERT INTO t VALUES ('x') RETURNING id;\nUPDATE t SET a = 1;\nSELECT 2 AS two");
    expect(results).toEqual([[{ id: 7 }], [], [{ two: 2 }, { two: 3 }]]);
  });

  test('when a text is late, then its marker becomes the expression inside every literal that holds it, and a marker of another shape is refused', async () => {
    const pg = fakePostgres(db);
    const marker = lateMarker();
    expect(marker).toMatch(/^@late:[0-9a-f]{16}@$/);
    await withTenant(db, TENANT, (tx) =>
      selectResults(tx, [{ sql: 'SELECT :a, :b', replacements: { a: `Invoice ${marker}, O'Brien`, b: JSON.stringify({ number: marker }) } }], {
        late: [{ marker, expression: "current_setting('app.n')" }],
      }),
    );
    expect(pg.sent[1]).toBe(`/* batch */ SELECT 'Invoice ' || current_setting('app.n') || ', O''Brien', '{"number":"' || current_setting('app.n') || '"}'`);
    await expect(withTenant(db, TENANT, (tx) => selectResults(tx, [{ sql: 'SELECT 1' }], { late: [{ marker: "x' OR '1", expression: '1' }] }))).rejects.toThrow(TypeError);
  });

  test('when the batch is one statement, then its rows come back as the one result', async () => {
    fakePostgres(db, (statement) => (statement.includes('SELECT 2') ? [{ two: 2 }] : []));
    expect(await withTenant(db, TENANT, (tx) => selectResults(tx, [{ sql: 'SELECT 2 AS two' }]))).toEqual([[{ two: 2 }]]);
  });
});

describe('inlineStatement', () => {
  test.each<[string, Statement, string]>([
    ['text, with quotes doubled', { sql: 'SELECT :a, :b', replacements: { a: 'plain', b: "O'Brien" } }, "SELECT 'plain', 'O''Brien'"],
    ['numbers, booleans and null', { sql: 'SELECT :n, :b, :z, :big', replacements: { n: 12.5, b: false, z: null, big: 10n } }, 'SELECT 12.5, false, NULL, 10'],
    ['a list, for ARRAY[...] and IN (...)', { sql: 'SELECT ARRAY[:codes]::text[] WHERE x IN (:codes)', replacements: { codes: ['5110', '9010'] } }, "SELECT ARRAY['5110', '9010']::text[] WHERE x IN ('5110', '9010')"],
    ['an empty list', { sql: 'SELECT ARRAY[:codes]::text[]', replacements: { codes: [] } }, 'SELECT ARRAY[]::text[]'],
    ['a date', { sql: 'SELECT :at', replacements: { at: new Date('2025-01-02T03:04:05.678Z') } }, "SELECT '2025-01-02 03:04:05.678 +00:00'"],
    ['casts, literals and quoted names left as they are', { sql: `SELECT x::text, ':a', "b:a", y = :a, 'it''s :a'`, replacements: { a: 1 } }, `SELECT x::text, ':a', "b:a", y = 1, 'it''s :a'`],
    ['a trailing semicolon dropped', { sql: '  SELECT :a;  ', replacements: { a: 1 } }, 'SELECT 1'],
    ['a value that looks like a replacement written as text', { sql: 'SELECT :a, :b', replacements: { a: ':b', b: 'x' } }, "SELECT ':b', 'x'"],
  ])('when it has %s, then the literal is written in', (_what, statement, sql) => {
    expect(inlineStatement(db, statement)).toBe(sql);
  });

  test('when a replacement is missing, then it throws instead of sending the name', () => {
    expect(() => inlineStatement(db, { sql: 'SELECT :a, :b', replacements: { a: 1 } })).toThrow('no replacement for :b');
    expect(() => inlineStatement(db, { sql: 'SELECT :a', replacements: { a: undefined } })).toThrow('no replacement for :a');
  });

  test.each([
    ['a $n parameter', 'SELECT $1, :a'],
    ['a dollar quote', 'SELECT $$:a$$, :a'],
    ['a comment', 'SELECT :a -- :b'],
    ['a block comment', 'SELECT /* :b */ :a'],
    ['an escape-string literal', "SELECT E'\\' :b', :a"],
  ])('when the SQL has %s, then it is refused rather than guessed at', (_what, sql) => {
    expect(() => inlineStatement(db, { sql, replacements: { a: 1 } })).toThrow(TypeError);
  });

  test('when it writes the statements the services batch, then each is what Sequelize sends for the same raw query with replacements', async () => {
    const scope = { tenantId: TENANT, legalEntityId: COMPANY };
    const lines = [
      { lineNo: 1, accountCode: '5210', subaccountId: null, debit: '12850.12', credit: '0.00', memo: "cash 'on hand'", currency: 'USD', currencyAmount: '1.00', rate: '12850.12', rateSource: 'CBU' as const, rateDate: '2025-02-01' },
      { lineNo: 2, accountCode: '9010', subaccountId: null, debit: '0.00', credit: '12850.12', memo: null, currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null },
    ];
    const statements: Statement[] = [
      companyStatement(scope),
      companyStatement(scope, { forChange: true }),
      firstCompanyStatement(scope),
      companyChartPageStatement(scope, { q: "o'b", type: null, header: null, limit: 50, offset: 0 }),
      postingContextStatement(scope, { requestId: '0bb4b2a1-6339-4728-8b43-3320cf0aa49f', codes: ['5210', '9010'], subaccountIds: [], currencies: ['USD'], entryDate: '2025-02-03' }),
      postJournalEntryStatement(scope, {
        id: 'd2310ece-12ce-49c6-950d-625c2b8eed80', entryDate: '2025-02-03', description: 'Entry', reference: null, requestId: '0bb4b2a1-6339-4728-8b43-3320cf0aa49f',
        requestHash: 'e6c0', reversalOf: null, total: '12850.12', postedByMembershipId: null, correlationId: 'a27f27a6-49bc-4ebf-a939-6db3cae8a836',
      }, lines),
      auditEventStatement({ tenantId: TENANT }, {
        action: 'ledger.entry.posted', actorMembershipId: null, systemActor: true, correlationId: 'c', subjectType: 'JOURNAL_ENTRY', subjectId: 's', ipAddress: null,
        details: 'dated 2025-02-03: 2 lines',
      }).statement,
    ];
    const pg = fakePostgres(db);
    for (const statement of statements) await db.query(statement.sql, { replacements: statement.replacements });
    expect(statements.map((statement) => inlineStatement(db, statement))).toEqual(pg.sent);
  });
});
