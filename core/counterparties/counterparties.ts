import { AppError } from '../shared/problems';

// The register of customers and suppliers: what a counterparty's details must be beyond the formats the
// OpenAPI document states (and the database checks again, db/migrations/…counterparties.ts).

export interface BankAccount {
  /** The bank's five-digit code (MFO). */
  bankCode: string;
  /** The twenty-digit settlement account number. */
  accountNumber: string;
}

/** A counterparty's details as a request gives them: optional fields absent or null. */
export interface CounterpartyInput {
  name: string;
  tin?: string | null;
  pinfl?: string | null;
  vatRegistrationCode?: string | null;
  bankAccounts?: BankAccount[];
  address?: string | null;
  paymentTermsDays?: number;
}

/** The details as stored: text trimmed, what is absent null (no bank accounts: an empty list, no terms: 0). */
export interface CounterpartyDetails {
  name: string;
  tin: string | null;
  pinfl: string | null;
  vatRegistrationCode: string | null;
  bankAccounts: BankAccount[];
  address: string | null;
  paymentTermsDays: number;
}

/** Which identification number a counterparty is registered under: unique in the company when given. */
export type IdentityField = 'tin' | 'pinfl';

function invalid(path: string, message: string): AppError {
  return new AppError('validation', `${path} ${message}`, { errors: [{ path, message }] });
}

/**
 * The stored form of a counterparty's details, or a 400 `validation` problem:
 * - the name is trimmed and must not be blank;
 * - a TIN (a legal entity) and a PINFL (an individual) exclude each other; a foreign counterparty has neither;
 * - a bank account (bank code and account number) is listed once;
 * - a blank address is none.
 */
export function counterpartyDetailsOf(input: CounterpartyInput): CounterpartyDetails {
  const name = input.name.trim();
  if (name === '') throw invalid('/body/name', 'must not be blank');
  const tin = input.tin ?? null;
  const pinfl = input.pinfl ?? null;
  if (tin !== null && pinfl !== null) {
    throw invalid('/body/pinfl', 'must be absent when tin is given: a counterparty is a legal entity (tin) or an individual (pinfl), not both');
  }
  const bankAccounts = (input.bankAccounts ?? []).map(({ bankCode, accountNumber }) => ({ bankCode, accountNumber }));
  const seen = new Set<string>();
  bankAccounts.forEach(({ bankCode, accountNumber }, i) => {
    const key = `${bankCode}/${accountNumber}`;
    if (seen.has(key)) throw invalid(`/body/bankAccounts/${i}`, 'repeats a bank account listed before');
    seen.add(key);
  });
  const address = input.address?.trim() || null;
  return { name, tin, pinfl, vatRegistrationCode: input.vatRegistrationCode ?? null, bankAccounts, address, paymentTermsDays: input.paymentTermsDays ?? 0 };
}

/** The identification number the details carry, if any: the one a duplicate would be about. */
export function identityOf(details: Pick<CounterpartyDetails, 'tin' | 'pinfl'>): { field: IdentityField; value: string } | null {
  if (details.tin !== null) return { field: 'tin', value: details.tin };
  if (details.pinfl !== null) return { field: 'pinfl', value: details.pinfl };
  return null;
}

/** 409 `counterparty-tin-exists`, naming the number (`tin` or `pinfl`). */
export function identityTaken(field: IdentityField, value: string): AppError {
  const what = field === 'tin' ? 'TIN' : 'PINFL';
  return new AppError('counterparty-tin-exists', `A counterparty of this company has ${what} ${value}`, { [field]: value });
}
