import { Sequelize, Transaction, QueryTypes } from 'sequelize';

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
 * Runs `work` in one transaction in which row-level security sees only `tenantId`.
 * The setting is transaction-scoped (set_config(..., true)), so a pooled connection never carries it
 * into another request.
 */
export async function withTenant<T>(db: Sequelize, tenantId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await db.query("SELECT set_config('app.tenant_id', :tenantId, true)", {
      replacements: { tenantId },
      transaction: tx,
      type: QueryTypes.SELECT,
    });
    return work(tx);
  });
}

export async function setTenant(db: Sequelize, tx: Tx, tenantId: string): Promise<void> {
  await db.query("SELECT set_config('app.tenant_id', :tenantId, true)", {
    replacements: { tenantId },
    transaction: tx,
    type: QueryTypes.SELECT,
  });
}
