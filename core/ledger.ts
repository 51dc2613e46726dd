import { createHash } from 'node:crypto';
import { AppError } from './problems';
import { formatMinorUnits, toMinorUnits } from './money';

// The ledger's rules that need no database: an entry's arithmetic, its idempotency key, a reversal's
// mirror, and the checks of a posting against what the database answered. The database enforces the same
// rules again (balanced totals, lines adding up, no line on a header account, the cut-off).

/** A line as it is written: amounts as decimal strings with two places, exactly one of them above zero. */
export interface LedgerLine {
  lineNo: number;
  accountCode: string;
  subaccountId: string | null;
  debit: string;
  credit: string;
  memo: string | null;
}

/** An entry ready to be written: checked lines, its total in minor units and the hash of its content. */
export interface PreparedEntry {
  entryDate: string;
  description: string;
  reference: string | null;
  lines: LedgerLine[];
  total: bigint;
  hash: string;
  reversalOf: string | null;
}

export interface EntryInput {
  entryDate: string;
  description: string;
  reference?: string | null;
  lines: Array<{ accountCode: string; subaccountId?: string | null; debit: string; credit: string; memo?: string | null }>;
}

/** An entry's totals are NUMERIC(20,2): at most 18 digits before the point. */
export const MAX_ENTRY_TOTAL = 10n ** 20n - 1n;

/** What identifies a request's content: the same requestId with other content is a 409, never a second entry. */
export function requestHash(content: unknown): string {
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/**
 * Checks the arithmetic of an entry: one positive side per line, totals the database can hold, and debits
 * equal to credits, exactly (BigInt minor units). Amounts are normalised, so "42" and "42.00" are one request.
 */
export function prepareEntry(input: EntryInput): PreparedEntry {
  let debits = 0n;
  let credits = 0n;
  const lines = input.lines.map((line, i): LedgerLine => {
    const debit = toMinorUnits(line.debit);
    const credit = toMinorUnits(line.credit);
    if ((debit > 0n) === (credit > 0n)) {
      throw new AppError('validation', `Line ${i + 1} must have exactly one of debit and credit above zero`, {
        errors: [{ path: `/body/lines/${i}`, message: 'must have exactly one of debit and credit above zero' }],
      });
    }
    debits += debit;
    credits += credit;
    return {
      lineNo: i + 1,
      accountCode: line.accountCode,
      subaccountId: line.subaccountId ?? null,
      debit: formatMinorUnits(debit),
      credit: formatMinorUnits(credit),
      memo: line.memo ?? null,
    };
  });
  if (debits > MAX_ENTRY_TOTAL || credits > MAX_ENTRY_TOTAL) {
    throw new AppError('validation', `The entry's totals exceed ${formatMinorUnits(MAX_ENTRY_TOTAL)}, the most an entry can hold`, {
      errors: [{ path: '/body/lines', message: `totals must not exceed ${formatMinorUnits(MAX_ENTRY_TOTAL)}` }],
    });
  }
  if (debits !== credits) {
    throw new AppError('entry-unbalanced', `Debits ${formatMinorUnits(debits)} do not equal credits ${formatMinorUnits(credits)}`, {
      totalDebit: formatMinorUnits(debits),
      totalCredit: formatMinorUnits(credits),
    });
  }
  const content = { entryDate: input.entryDate, description: input.description, reference: input.reference ?? null, lines };
  return { ...content, total: debits, hash: requestHash(content), reversalOf: null };
}

/** The entry a reversal posts: the original's lines with debit and credit swapped, dated and explained by the request. */
export function prepareReversal(
  original: { id: string; number: number; reference: string | null; totalDebit: string; lines: LedgerLine[] },
  request: { entryDate: string; reason: string },
): PreparedEntry {
  return {
    entryDate: request.entryDate,
    description: `Reversal of entry #${original.number}: ${request.reason}`.slice(0, 500),
    reference: original.reference,
    lines: original.lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit })),
    total: toMinorUnits(original.totalDebit),
    hash: requestHash({ reversalOf: original.id, entryDate: request.entryDate, reason: request.reason }),
    reversalOf: original.id,
  };
}

/** What the database answered about a posting before anything is written. */
export interface PostingFacts {
  company: { archived: boolean } | null;
  replayed: boolean;
  knownCodes: ReadonlySet<string>;
  /** Header accounts among the codes, each with the detail accounts under it. */
  headerDetails: ReadonlyMap<string, readonly string[]>;
  subaccountParents: ReadonlyMap<string, string>;
}

/**
 * The company exists and is not archived, the requestId is new (else the caller answers the replay), every
 * line's account is the company's (400 unknown-account), and no line is on a header account (400
 * header-account, one error per line). A reversal's lines are the original's, not the body's: its header
 * errors name the line without a path into the body.
 */
export function checkPosting(facts: PostingFacts, lines: readonly LedgerLine[], reversal: boolean): { replayed: boolean } {
  if (!facts.company) throw new AppError('not-found', 'No company with this id in your workspace');
  if (facts.replayed) return { replayed: true };
  if (facts.company.archived) throw new AppError('company-archived', 'The company is archived; its ledger is read-only');
  const errors = lines.flatMap((l, i) => {
    if (!facts.knownCodes.has(l.accountCode)) return [{ path: `/body/lines/${i}/accountCode`, message: `no account ${l.accountCode} in this company's chart` }];
    if (l.subaccountId && facts.subaccountParents.get(l.subaccountId) !== l.accountCode) {
      return [{ path: `/body/lines/${i}/subaccountId`, message: `not a subaccount of ${l.accountCode} in this company` }];
    }
    return [];
  });
  if (errors.length > 0) throw new AppError('unknown-account', errors.map((e) => e.message).join('; '), { errors });
  const headers = lines.flatMap((l, i) => {
    const details = facts.headerDetails.get(l.accountCode);
    if (!details) return [];
    return [
      {
        ...(reversal ? {} : { path: `/body/lines/${i}/accountCode` }),
        message: `line ${l.lineNo}: ${l.accountCode} is a header account; post to one of its detail accounts (${details.join(', ')})`,
      },
    ];
  });
  if (headers.length > 0) throw new AppError('header-account', headers.map((e) => e.message).join('; '), { errors: headers });
  return { replayed: false };
}
