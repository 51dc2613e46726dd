import { DatabaseError, UniqueConstraintError } from 'sequelize';

// What repositories throw when the database refuses a write for a reason a use case answers: typed errors
// instead of SQLSTATEs, so nothing above db/ knows PostgreSQL's codes. db/connection.ts translates every
// statement it sends and every tenant transaction (model calls and COMMIT included); a model call outside
// one that a use case answers goes through translatingStoreErrors. Anything else is rethrown as it is
// (an unavailable database stays what db/unavailable.ts recognises).

/** A unique key refused a second row (SQLSTATE 23505): the constraint names which one. */
export class DuplicateRowError extends Error {
  override readonly name = 'DuplicateRowError';

  constructor(
    readonly constraint: string | null,
    options?: ErrorOptions,
  ) {
    super(`duplicate row (${constraint ?? 'unknown constraint'})`, options);
  }
}

/** A number beyond what its column holds (SQLSTATE 22003), e.g. a balance past NUMERIC(22,2). */
export class NumberOutOfRangeError extends Error {
  override readonly name = 'NumberOutOfRangeError';

  constructor(options?: ErrorOptions) {
    super('a number is beyond what its column holds', options);
  }
}

/** The ledger's rules as the database states them (raised by its triggers with our own SQLSTATEs). */
export type LedgerRule = 'period-closed' | 'header-account' | 'document-frozen';

/**
 * A ledger rule refused the write (P0C10: dated at or before the cut-off; P0C12: a line on a header account;
 * P0C20: a change to a posted document).
 */
export class LedgerRuleError extends Error {
  override readonly name = 'LedgerRuleError';

  constructor(
    readonly rule: LedgerRule,
    options?: ErrorOptions,
  ) {
    super(`the ledger refused the write: ${rule}`, options);
  }
}

const LEDGER_RULES: Record<string, LedgerRule> = { P0C10: 'period-closed', P0C12: 'header-account', P0C20: 'document-frozen' };

/** The SQLSTATE of a database error Sequelize wrapped, or null. */
function sqlStateOf(err: unknown): string | null {
  if (!(err instanceof DatabaseError)) return null;
  return (err.original as { code?: string } | undefined)?.code ?? null;
}

/**
 * The typed error for `err` when the database refused it for one of the reasons above (the database's error
 * kept as its cause, for logs); else `err` itself, so translating twice changes nothing.
 */
export function translateStoreError(err: unknown): unknown {
  if (err instanceof UniqueConstraintError) {
    return new DuplicateRowError((err.original as { constraint?: string } | undefined)?.constraint ?? null, { cause: err });
  }
  const code = sqlStateOf(err);
  if (code === '23505') return new DuplicateRowError((err as DatabaseError & { original: { constraint?: string } }).original.constraint ?? null, { cause: err });
  if (code === '22003') return new NumberOutOfRangeError({ cause: err });
  if (code && LEDGER_RULES[code]) return new LedgerRuleError(LEDGER_RULES[code], { cause: err });
  return err;
}

/** Runs `work`, turning the database's refusals into the typed errors above. */
export async function translatingStoreErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw translateStoreError(err);
  }
}
