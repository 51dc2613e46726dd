import { AppError } from '../shared/problems';
import { FUNCTIONAL_CURRENCY, isKnownCurrency } from '../ledger/currency';

// The register of the company's own bank accounts: what an account's details must be beyond the formats the
// OpenAPI document states (and the database checks again, db/migrations/…bank-accounts.ts).

/** The GL accounts a bank account may be kept on: cash in the settlement account and in foreign currency accounts. */
export const BANK_GL_RANGE = { first: '5100', last: '5290' } as const;

/** The GL account a bank account is kept on unless the request names one: 5110 for UZS, 5210 for a foreign currency. */
export function defaultGlAccount(currency: string): string {
  return currency === FUNCTIONAL_CURRENCY ? '5110' : '5210';
}

/** A bank account's details as a request gives them: `currency` and `accountCode` may be left out. */
export interface BankAccountInput {
  bankCode: string;
  accountNumber: string;
  currency?: string;
  accountCode?: string;
  name: string;
}

/** The details as stored: the name trimmed, the currency and the GL account filled in. */
export interface BankAccountDetails {
  bankCode: string;
  accountNumber: string;
  currency: string;
  accountCode: string;
  name: string;
}

function invalid(path: string, message: string): AppError {
  return new AppError('validation', `${path} ${message}`, { errors: [{ path, message }] });
}

/**
 * The stored form of a bank account's details, or a 400 `validation` problem:
 * - the name is trimmed and must not be blank;
 * - the currency is an ISO 4217 code the ledger knows, UZS when left out;
 * - the GL account is in 5100–5290, the currency's default when left out. Whether the company's chart has it,
 *   and not as a header, is the chart's to say (`glAccountProblem`).
 */
export function bankAccountDetailsOf(input: BankAccountInput): BankAccountDetails {
  const name = input.name.trim();
  if (name === '') throw invalid('/body/name', 'must not be blank');
  const currency = input.currency ?? FUNCTIONAL_CURRENCY;
  if (!isKnownCurrency(currency)) throw invalid('/body/currency', `${currency} is not an ISO 4217 currency code`);
  const accountCode = input.accountCode ?? defaultGlAccount(currency);
  if (accountCode < BANK_GL_RANGE.first || accountCode > BANK_GL_RANGE.last) {
    throw invalid('/body/accountCode', `${accountCode} is not a bank account of the chart: use an account in ${BANK_GL_RANGE.first}–${BANK_GL_RANGE.last} (5110, 5210, 5220)`);
  }
  return { bankCode: input.bankCode, accountNumber: input.accountNumber, currency, accountCode, name };
}

/** What the company's chart says of the GL account: absent, a header (with its detail accounts) or a detail account. */
export type GlAccountState = { kind: 'absent' } | { kind: 'header'; details: string[] } | { kind: 'detail' };

/** The 400 for a GL account the chart does not allow (`unknown-account`, `header-account`), or null when it does. */
export function glAccountProblem(code: string, state: GlAccountState): AppError | null {
  const path = '/body/accountCode';
  if (state.kind === 'absent') {
    const message = `no account ${code} in this company's chart`;
    return new AppError('unknown-account', message, { errors: [{ path, message }] });
  }
  if (state.kind === 'header') {
    const message = `${code} is a header account; use one of its detail accounts (${state.details.join(', ')})`;
    return new AppError('header-account', message, { errors: [{ path, message }] });
  }
  return null;
}

/** 409 `bank-account-number-exists`, naming the number. */
export function accountNumberTaken(accountNumber: string): AppError {
  return new AppError('bank-account-number-exists', `A bank account of this company has number ${accountNumber}`, { accountNumber });
}
