import type { Sequelize, Transaction } from 'sequelize';

/**
 * Runs a test's schema change (a trigger disabled, created or dropped) in one transaction that never
 * waits long for its table lock. A DDL statement waiting for its lock makes every later reader and writer
 * of the table queue behind it: in a database that other test files use at the same time, one long
 * transaction of theirs would then stall them all (a register behind `DROP TRIGGER … ON company_accounts`
 * waits as long as the DDL does). With `lock_timeout` the change gives up after a moment, releases
 * everything and tries again, as an online migration does.
 */
export async function withShortLockWaits<T>(db: Sequelize, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await db.transaction(async (tx) => {
        await db.query("SET LOCAL lock_timeout = '100ms'", { transaction: tx });
        return await work(tx);
      });
    } catch (err) {
      if (!isLockTimeout(err) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
}

function isLockTimeout(err: unknown): boolean {
  const cause = (err as { parent?: { code?: string }; original?: { code?: string } } | null) ?? {};
  return (cause.parent?.code ?? cause.original?.code) === '55P03';
}
