import { QueryTypes, Sequelize, Transaction } from 'sequelize';

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
  // A transaction keeps the Sequelize instance that opened it; the typings do not declare it.
  return db instanceof Transaction ? (db as unknown as { sequelize: Sequelize }).sequelize : db;
}

/** Raw SQL that returns rows (SELECT, or a write with RETURNING). */
export function selectRows<T extends object>(db: Db, sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
  return poolOf(db).query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: transactionOf(db) });
}

/** Raw SQL run for its effect. */
export async function execute(db: Db, sql: string, replacements: Record<string, unknown> = {}): Promise<void> {
  await poolOf(db).query(sql, { replacements, transaction: transactionOf(db) });
}

/**
 * Runs `work` in one transaction in which row-level security sees only `tenantId`.
 * The setting is transaction-scoped (set_config(..., true)), so a pooled connection never carries it
 * into another request.
 */
export async function withTenant<T>(db: Sequelize, tenantId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await setTenant(tx, tenantId);
    return work(tx);
  });
}

export async function setTenant(tx: Tx, tenantId: string): Promise<void> {
  await selectRows(tx, "SELECT set_config('app.tenant_id', :tenantId, true)", { tenantId });
}
