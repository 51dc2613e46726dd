import { createHash } from 'node:crypto';
import type { components } from '../../contracts/openapi';
import { AppError } from '../shared/problems';
import { formatMinorUnits, toMinorUnits } from './money';
import { convertToUzs, currencyDecimals, decimalsOf, formatForeignAmount, FUNCTIONAL_CURRENCY, isKnownCurrency, type RateSourceKind } from './currency';
import { canonical } from '../rates/rates';
import { isSettlementAccount } from './accounts';

// The ledger's rules that need no database: an entry's arithmetic, its idempotency key, a reversal's
// mirror, and the checks of a posting against what the database answered. The database enforces the same
// rules again (balanced totals, lines adding up, no line on a header account, the cut-off).

/**
 * A line as it is written and read back: the API's JournalLine (one declaration, in the OpenAPI document).
 * Amounts are decimal strings with two places, exactly one of them above zero; a foreign line's currency is
 * never UZS, and a UZS line has null in `currency` and the four fields after it. `currencyAmount` is in the
 * currency's own decimals, "0" only on a revaluation line; `rate` is null on a CBU line until the stored rate
 * of the entry date is read.
 */
export type LedgerLine = components['schemas']['JournalLine'];

export interface LineInput {
  accountCode: string;
  subaccountId?: string | null;
  counterpartyId?: string | null;
  debit: string;
  credit: string;
  memo?: string | null;
  currency?: string;
  currencyAmount?: string;
  rate?: string;
  rateSource?: RateSourceKind;
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
  lines: LineInput[];
}

/** An entry's totals are NUMERIC(20,2): at most 18 digits before the point. */
export const MAX_ENTRY_TOTAL = 10n ** 20n - 1n;

/**
 * The requestId of a system entry (a revaluation's, a year-end closing's) from what it is for: the same key
 * gives the same id every time, so a retried step finds the entry it wrote (the journal's unique requestId)
 * instead of writing a second one. Shaped as a version-8 (custom) UUID with the RFC 4122 variant.
 */
export function systemRequestId(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

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
    const foreign = foreignPartOf(line, i, input.entryDate);
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
      counterpartyId: line.counterpartyId ?? null,
      debit: formatMinorUnits(debit),
      credit: formatMinorUnits(credit),
      memo: line.memo ?? null,
      ...foreign,
    };
  });
  const mismatches = lines.flatMap((l, i) => conversionErrors(l, i));
  if (mismatches.length > 0) throw conversionMismatch(mismatches);
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
  // A UZS line hashes as it did before lines had currencies, and a line without a counterparty as it did before
  // lines had counterparties: a request repeated across versions is one request.
  const hashed = lines.map(({ currency, currencyAmount, rate, rateSource, rateDate, counterpartyId, ...uzs }) => {
    const line = currency === null ? uzs : { ...uzs, currency, currencyAmount, rate: rateSource === 'CBU' ? null : rate, rateSource, rateDate: rateSource === 'CBU' ? null : rateDate };
    return counterpartyId === null ? line : { ...line, counterpartyId };
  });
  const content = { entryDate: input.entryDate, description: input.description, reference: input.reference ?? null };
  return { ...content, lines, total: debits, hash: requestHash({ ...content, lines: hashed }), reversalOf: null };
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
  /** The company's counterparties among those the lines name, each with whether it is archived (absent: none). */
  counterparties?: ReadonlyMap<string, { archived: boolean }>;
  /** The company's setting: lines on settlement accounts must name a counterparty (absent: off). */
  requireCounterpartyOnSettlements?: boolean;
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
  // A reversal mirrors its original's lines, counterparties included: an archived counterparty, or a setting
  // turned on since, does not keep a posted entry from being reversed.
  if (!reversal) checkCounterparties(facts, lines);
  return { replayed: false };
}

/**
 * Every named counterparty is the company's and not archived (400 unknown-counterparty), and with the
 * company's setting on, every line on a settlement account names one (400 counterparty-required).
 */
function checkCounterparties(facts: Pick<PostingFacts, 'counterparties' | 'requireCounterpartyOnSettlements'>, lines: readonly LedgerLine[]): void {
  const unknown = lines.flatMap((l, i) => {
    if (l.counterpartyId === null) return [];
    const counterparty = facts.counterparties?.get(l.counterpartyId);
    if (counterparty && !counterparty.archived) return [];
    return [
      {
        path: `/body/lines/${i}/counterpartyId`,
        message: `line ${l.lineNo}: ${counterparty ? 'the counterparty is archived' : 'no counterparty with this id in this company'}`,
      },
    ];
  });
  if (unknown.length > 0) throw new AppError('unknown-counterparty', unknown.map((e) => e.message).join('; '), { errors: unknown });
  if (facts.requireCounterpartyOnSettlements !== true) return;
  const missing = lines.flatMap((l, i) =>
    l.counterpartyId === null && isSettlementAccount(l.accountCode)
      ? [{ path: `/body/lines/${i}/counterpartyId`, message: `line ${l.lineNo}: ${l.accountCode} is a settlement account; name the line's counterparty` }]
      : [],
  );
  if (missing.length > 0) throw new AppError('counterparty-required', missing.map((e) => e.message).join('; '), { errors: missing });
}

const NO_FOREIGN = { currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null } as const;

/**
 * The currency part of a line as given: none for a UZS line (no currency, or UZS with nothing else); for a
 * foreign line a known ISO 4217 code, a positive amount in the currency's decimals, and either a client's rate
 * (BANK or MANUAL, dated the entry date) or the CBU rate of the entry date, read with the posting's checks.
 */
function foreignPartOf(line: LineInput, i: number, entryDate: string): Pick<LedgerLine, 'currency' | 'currencyAmount' | 'rate' | 'rateSource' | 'rateDate'> {
  const path = `/body/lines/${i}`;
  const invalid = (field: string, message: string) =>
    new AppError('validation', `Line ${i + 1}: ${field} ${message}`, { errors: [{ path: `${path}/${field}`, message }] });
  if (line.currency === undefined || line.currency === FUNCTIONAL_CURRENCY) {
    for (const field of ['currencyAmount', 'rate', 'rateSource'] as const) {
      if (line[field] !== undefined) throw invalid(field, 'is only for a line in a foreign currency; a UZS line has its amount in debit or credit');
    }
    return NO_FOREIGN;
  }
  const currency = line.currency;
  if (!isKnownCurrency(currency)) throw invalid('currency', `${currency} is not an ISO 4217 currency code`);
  if (line.currencyAmount === undefined) throw invalid('currencyAmount', `is required for a line in ${currency}`);
  if (!/[1-9]/.test(line.currencyAmount)) throw invalid('currencyAmount', 'must be above zero');
  const decimals = currencyDecimals(currency);
  if (decimalsOf(line.currencyAmount) > decimals) throw invalid('currencyAmount', `has more decimals than ${currency} has (${decimals})`);
  const rateSource = line.rateSource ?? 'CBU';
  if (rateSource !== 'CBU' && line.rate === undefined) throw invalid('rate', `is required with rateSource ${rateSource}`);
  return {
    currency,
    currencyAmount: formatForeignAmount(line.currencyAmount, currency),
    rate: line.rate === undefined ? null : canonical(line.rate),
    rateSource,
    rateDate: rateSource === 'CBU' ? null : entryDate,
  };
}

interface ConversionError {
  path: string;
  message: string;
  expectedAmount: string | null;
}

/** The line's UZS amount against its conversion, once its rate is known (nothing to say before). */
function conversionErrors(line: LedgerLine, i: number): ConversionError[] {
  // A CBU line is checked once the stored rate is read (its rateDate says it was).
  if (line.currency === null || line.rate === null || line.rateDate === null || line.currencyAmount === null) return [];
  const side = line.debit !== '0.00' ? 'debit' : 'credit';
  const expected = convertToUzs(line.currencyAmount, line.rate);
  const given = side === 'debit' ? line.debit : line.credit;
  if (expected === given) return [];
  return [
    {
      path: `/body/lines/${i}/${side}`,
      message:
        expected === null
          ? `${line.currencyAmount} ${line.currency} at ${line.rate} is more than an amount can hold`
          : `must be ${expected}: ${line.currencyAmount} ${line.currency} at ${line.rate} (${line.rateSource} ${line.rateDate}), rounded half-up to two decimals`,
      expectedAmount: expected,
    },
  ];
}

function conversionMismatch(errors: ConversionError[]): AppError {
  return new AppError('conversion-mismatch', errors.map((e) => e.message).join('; '), { errors });
}

/** The stored CBU rates a posting's CBU lines use: per currency, the latest publication on or before the entry date. */
export type StoredRates = ReadonlyMap<string, { rate: string; rateDate: string }>;

/**
 * Fills the CBU lines' rates from the stored rates and checks their conversions: 409 rate-unavailable when a
 * currency has no stored rate on or before the entry date, 400 conversion-mismatch (with the expected
 * amounts) when a UZS amount is not the conversion. A CBU line that names a rate must name the stored one.
 */
export function applyStoredRates(prepared: PreparedEntry, rates: StoredRates): PreparedEntry {
  const missing = currenciesToRate(prepared.lines).filter((c) => !rates.has(c));
  if (missing.length > 0) {
    throw new AppError('rate-unavailable', `No CBU rate is stored for ${missing.join(', ')} on or before ${prepared.entryDate}`, {
      currencies: missing,
      date: prepared.entryDate,
    });
  }
  const errors: ConversionError[] = [];
  const lines = prepared.lines.map((l, i) => {
    if (l.currency === null || l.rateDate !== null) return l;
    const stored = rates.get(l.currency!)!;
    if (l.rate !== null && l.rate !== canonical(stored.rate)) {
      errors.push({ path: `/body/lines/${i}/rate`, message: `the CBU rate of ${l.currency} for ${prepared.entryDate} is ${canonical(stored.rate)}`, expectedAmount: null });
      return l;
    }
    const filled = { ...l, rate: canonical(stored.rate), rateDate: stored.rateDate };
    errors.push(...conversionErrors(filled, i));
    return filled;
  });
  if (errors.length > 0) throw conversionMismatch(errors);
  return { ...prepared, lines };
}

/** The currencies whose CBU rate a posting needs. */
export function currenciesToRate(lines: readonly LedgerLine[]): string[] {
  return [...new Set(lines.flatMap((l) => (l.currency !== null && l.rateDate === null ? [l.currency] : [])))];
}
