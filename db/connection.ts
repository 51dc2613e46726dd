import { randomBytes } from 'node:crypto';
import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import { translateStoreError, translatingStoreErrors } from './repositories/errors';

export function createSequelize(url: string, options: { poolMax?: number } = {}): Sequelize {
  return new Sequelize(url, {
    dialect: 'postgres',
    // Never log SQL: Sequelize inlines replacement values, and some of them are token or password hashes.
    logging: false,
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10000, acquire: 30000 },
    define: { underscored: true, timestamps: false },
    dialectOptions: { application_name: 'accounting-backend' },
  });
}

export type Tx = Transaction;

/**
 * What a repository function runs on, always its first argument: the request's transaction (tenant set),
 * or the pool for the few statements that stand alone (a security-definer lookup, an attempt counter).
 */
export type Db = Sequelize | Transaction;

/** The pool and (inside one) the transaction of `db`, for model calls: `{ transaction: transactionOf(db) }`. */
export function transactionOf(db: Db): Transaction | undefined {
  return db instanceof Transaction ? db : undefined;
}

function poolOf(db: Db): Sequelize {
  // A transaction keeps the Sequelize instance that opened it; the typings do not declare it (pinned with
  // TenantTransaction's contract in test/unit/db/connection.test.ts).
  return db instanceof Transaction ? (db as unknown as { sequelize: Sequelize }).sequelize : db;
}

// Every statement sent from here, and every tenant transaction (its opening, its work, its COMMIT, where
// deferred constraint triggers fire), throws the typed errors of repositories/errors.ts instead of
// SQLSTATEs.

/** Raw SQL that returns rows (SELECT, or a write with RETURNING). */
export function selectRows<T extends object>(db: Db, sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
  return translatingStoreErrors(() => poolOf(db).query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: transactionOf(db) }));
}

/**
 * Raw SQL with positional parameters ($1, $2…) sent apart from its text (the extended protocol): for a large
 * binary value, such as a bank statement's file, that would otherwise be escaped into the text twice its size.
 */
export function selectBound<T extends object>(db: Db, sql: string, bind: unknown[]): Promise<T[]> {
  return translatingStoreErrors(() => poolOf(db).query<T>(sql, { bind, type: QueryTypes.SELECT, transaction: transactionOf(db) }));
}

/** Raw SQL run for its effect. */
export async function execute(db: Db, sql: string, replacements: Record<string, unknown> = {}): Promise<void> {
  await translatingStoreErrors(() => poolOf(db).query(sql, { replacements, transaction: transactionOf(db) }));
}

/** One SQL statement with its named replacements, sent as part of a pipelined batch (see withTenant). */
export interface Statement {
  sql: string;
  replacements?: Record<string, unknown>;
}

type PgResult = { rows: Record<string, unknown>[] };

// Read left to right: quoted text is skipped ('…' literals, "…" identifiers), `::` is a cast, and a
// replacement is `:name` where a token may start (as in Sequelize's own replacement parser).
const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|::|(?<=^|[\s(>,=[]):([A-Za-z_]\w*)/g;
// What TOKEN does not read, refused rather than guessed at: dollar quotes and $n parameters, comments,
// backslash-escaped E'…' literals.
const UNREAD = /\$|--|\/\*|(?<!\w)[eE]'/;

/** A replacement value as a literal, written by Sequelize's public escaper; an array as a list (`IN (:ids)`, `ARRAY[:ids]`). */
function literal(db: Sequelize, value: unknown, inList = false): string {
  if (Array.isArray(value) && !inList) return value.map((v) => literal(db, v, true)).join(', ');
  if (value === null) return 'NULL';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string' || typeof value === 'number' || value instanceof Date) return db.escape(value);
  throw new TypeError(`a replacement is a string, number, boolean, date, null or a list of them, not ${typeof value}`);
}

/** The statement with its replacements written in as literals (as Sequelize writes raw queries' replacements). */
export function inlineStatement(db: Sequelize, statement: Statement): string {
  const sql = statement.sql.trim().replace(/;$/, '');
  const replacements = statement.replacements;
  if (!replacements) return sql;
  if (UNREAD.test(sql)) throw new TypeError(`a statement with replacements has no dollar quote, $n parameter, comment or E'' literal: ${sql.slice(0, 60)}`);
  return sql.replace(TOKEN, (token: string, name: string | undefined) => {
    if (name === undefined) return token;
    if (!Object.hasOwn(replacements, name) || replacements[name] === undefined) throw new TypeError(`no replacement for :${name}`);
    return literal(db, replacements[name]);
  });
}

/**
 * A Sequelize transaction whose opening is one round trip: START TRANSACTION, the tenant setting and the
 * caller's first statements go to PostgreSQL as one simple-protocol batch. Each statement costs a network
 * round trip and a write on both sides, which on this service's short requests weighs more than the SQL.
 *
 * Sequelize has no public way to open a transaction with more than START TRANSACTION, and models need its
 * Transaction, so this subclass replaces the undocumented `begin` that `prepareEnvironment` calls once the
 * connection is acquired. The installed version is pinned exactly, and test/unit/db/connection.test.ts
 * fails if that contract changes.
 */
class TenantTransaction extends Transaction {
  /** The rows of each opening statement, in order. */
  opened: Record<string, unknown>[][] = [];

  constructor(
    private readonly db: Sequelize,
    private readonly opening: string,
  ) {
    super(db, {});
  }

  /** Replaces Sequelize's begin (a lone START TRANSACTION): the opening, on this transaction's connection. */
  async begin(): Promise<void> {
    const [, results] = await this.db.query(this.opening, { transaction: this, type: QueryTypes.RAW });
    // The first two results are START TRANSACTION's and the tenant setting's.
    this.opened = (results as PgResult[]).slice(2).map((r) => r.rows);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The transaction's start and the tenant setting (set_config(..., true): this transaction only), then
 * `first`. Read-only, the batch is PostgreSQL's implicit transaction of one multi-statement query: it
 * commits at the end of the batch, or rolls back on an error and leaves the connection idle.
 */
function opening(db: Sequelize, tenantId: string, first: Statement[], options: { readOnly?: boolean } = {}): string {
  if (!UUID.test(tenantId)) throw new TypeError('tenant id is not a UUID');
  return [
    // Read-only batches see one snapshot: each statement reads what the first one saw.
    options.readOnly ? 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY' : 'START TRANSACTION',
    `SELECT set_config('app.tenant_id', '${tenantId}', true)`,
    ...first.map((statement) => inlineStatement(db, statement)),
  ].join(';\n');
}

/** Acquires the connection and runs `begin` (rolled back by Sequelize if the opening fails). */
function open(tx: TenantTransaction): Promise<void> {
  return (tx as unknown as { prepareEnvironment(useCls: boolean): Promise<void> }).prepareEnvironment(false);
}

async function runTransaction<T>(tx: TenantTransaction, work: (tx: Tx) => Promise<T>): Promise<T> {
  // As Sequelize's managed transaction: roll back on any failure, commit otherwise.
  await open(tx);
  let result: T;
  try {
    result = await work(tx);
  } catch (err) {
    await tx.rollback().catch(() => undefined);
    throw err;
  }
  await tx.commit();
  return result;
}

/** runTransaction, its refusals typed: the opening's, the work's (model calls included) and COMMIT's. */
async function runTranslated<T>(tx: TenantTransaction, work: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await runTransaction(tx, work);
  } catch (err) {
    throw translateStoreError(err);
  }
}

/**
 * Runs `work` in one transaction in which row-level security sees only `tenantId`.
 * The setting is transaction-scoped (set_config(..., true)), so a pooled connection never carries it
 * into another request. `first` statements run in the same round trip as the opening (e.g. the company
 * check of every company operation); `work` receives their rows.
 */
export async function withTenant<T>(
  db: Sequelize,
  tenantId: string,
  work: (tx: Tx, first: Record<string, unknown>[][]) => Promise<T>,
  first: Statement[] = [],
): Promise<T> {
  const tx = new TenantTransaction(db, opening(db, tenantId, first));
  return runTranslated(tx, (t) => work(t, tx.opened));
}

/**
 * Reads in one round trip: a read-only, repeatable-read transaction (one snapshot for every statement) with
 * the tenant setting and the statements, sent as one query (PostgreSQL's implicit transaction: committed when
 * the batch ends). Returns each statement's rows.
 * For reads whose statements do not depend on each other's results.
 */
export async function readInTenant(db: Sequelize, tenantId: string, statements: Statement[]): Promise<Record<string, unknown>[][]> {
  const [, results] = await translatingStoreErrors(() => db.query(opening(db, tenantId, statements, { readOnly: true }), { type: QueryTypes.RAW }));
  // The first two results are SET TRANSACTION's and the tenant setting's.
  return (results as PgResult[]).slice(2).map((r) => r.rows);
}

/**
 * Writes in several tenants in one round trip: each tenant's setting, then its statements, sent as one
 * simple-protocol query, which PostgreSQL runs as one implicit transaction (committed when the batch ends,
 * rolled back whole on an error). For writes that need no result, e.g. an audit event in each workspace.
 */
export async function writeInTenants(db: Sequelize, writes: Array<{ tenantId: string; statements: Statement[] }>): Promise<void> {
  if (writes.length === 0) return;
  const sql = writes
    .flatMap(({ tenantId, statements }) => {
      if (!UUID.test(tenantId)) throw new TypeError('tenant id is not a UUID');
      return [`SELECT set_config('app.tenant_id', '${tenantId}', true)`, ...statements.map((statement) => inlineStatement(db, statement))];
    })
    .join(';\n');
  await translatingStoreErrors(() => db.query(sql, { type: QueryTypes.RAW }));
}

/**
 * Statements of one transaction sent as one round trip (a simple-protocol batch), for writes whose SQL does
 * not depend on an earlier statement's result in the client. Returns the rows of all of them, in order (a
 * statement without RETURNING adds none). A failure rolls back with the transaction, as one statement would.
 */
export function selectBatch<T extends object>(tx: Tx, statements: Statement[]): Promise<T[]> {
  const db = poolOf(tx);
  const sql = statements.map((statement) => inlineStatement(db, statement)).join(';\n');
  return translatingStoreErrors(() => db.query<T>(sql, { type: QueryTypes.SELECT, transaction: tx }));
}

/**
 * Text known only once an earlier statement of the same batch has run (e.g. a number it took): `marker` stands
 * in for it inside the batch's text values, and the batch replaces it, within their literals, with the SQL text
 * `expression` (e.g. a transaction-local setting that statement set). The marker is random (`lateMarker`), so
 * no value a person typed holds it.
 */
export interface LateText {
  marker: string;
  expression: string;
}

const LATE_MARKER = /^@late:[0-9a-f]{16}@$/;

/** A marker for a LateText. */
export function lateMarker(): string {
  return `@late:${randomBytes(8).toString('hex')}@`;
}

/**
 * Statements of one transaction sent as one round trip (as selectBatch), answering each statement's rows
 * apart, in order: for batches whose statements answer rows of different shapes. `late` texts are written in
 * as the statement that sets them runs (see LateText).
 */
export async function selectResults(tx: Tx, statements: Statement[], options: { late?: LateText[] } = {}): Promise<Record<string, unknown>[][]> {
  const db = poolOf(tx);
  // Sequelize answers a RAW query starting with "INSERT INTO" as an insert (its row count, not the results),
  // whitespace trimmed: the leading comment keeps it from taking the batch for one.
  let sql = `/* batch */ ${statements.map((statement) => inlineStatement(db, statement)).join(';\n')}`;
  for (const { marker, expression } of options.late ?? []) {
    if (!LATE_MARKER.test(marker)) throw new TypeError('a late text marker is @late: and 16 hex digits, then @');
    sql = sql.replaceAll(marker, `' || ${expression} || '`);
  }
  const [, results] = await translatingStoreErrors(() => db.query(sql, { type: QueryTypes.RAW, transaction: tx }));
  // One statement answers its result, several an array of them.
  return (statements.length === 1 ? [results as PgResult] : (results as PgResult[])).map((r) => r.rows);
}

export async function setTenant(tx: Tx, tenantId: string): Promise<void> {
  await selectRows(tx, "SELECT set_config('app.tenant_id', :tenantId, true)", { tenantId });
}
