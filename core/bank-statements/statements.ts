import Decimal from 'decimal.js';

// What a bank statement says once its file is read, whatever the format: the shape the parsers in
// adapters/bank-statements return and the import works on. Amounts are decimal strings with two decimals.

export type StatementFormat = '1c' | 'camt.053' | 'mt940' | 'csv' | 'xlsx';

export interface ParsedLine {
  /** The booking day, YYYY-MM-DD. */
  date: string;
  direction: 'IN' | 'OUT';
  /** Greater than zero, two decimals ("1250.50"). */
  amount: string;
  /** The bank's own reference of the transaction, when the format carries one. */
  reference?: string;
  counterpartyName?: string;
  counterpartyTin?: string;
  counterpartyAccount?: string;
  counterpartyBankCode?: string;
  /** The purpose of payment; empty when the bank gave none. */
  purpose: string;
  /** The payment document's number (the payer's reference). */
  documentNumber?: string;
}

export interface ParsedStatement {
  format: StatementFormat;
  /** 20 digits where the format names an Uzbek account; an IBAN or the bank's own identifier otherwise. */
  accountNumber: string;
  bankCode?: string;
  currency?: string;
  periodFrom?: string;
  periodTo?: string;
  /** Signed: a debit (overdrawn) balance is negative. */
  openingBalance: string;
  closingBalance: string;
  lines: ParsedLine[];
}

/** What a statement says but its lines: its account, balances and period (a reader hands the lines on as it reads them). */
export type StatementHead = Omit<ParsedStatement, 'lines'>;

export type StatementFormatErrorCode =
  | 'too-large'
  | 'too-many-lines'
  | 'unsupported-format'
  | 'encoding'
  | 'truncated'
  | 'malformed'
  | 'xml-dtd';

/**
 * The one error a statement parser throws: the file cannot be read as a statement. `line` is the 1-based line
 * of the text (or row of the sheet) where it went wrong, when there is one; the message says it too and is
 * safe to show the user who sent the file.
 */
export class StatementFormatError extends Error {
  constructor(
    readonly code: StatementFormatErrorCode,
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = 'StatementFormatError';
  }
}

/**
 * Opening balance + Σ IN − Σ OUT − closing balance: "0.00" when the statement adds up. An import refuses a
 * statement whose difference is not zero, whole.
 */
export function statementDifference(statement: Pick<ParsedStatement, 'openingBalance' | 'closingBalance' | 'lines'>): string {
  let total = new Decimal(statement.openingBalance);
  for (const line of statement.lines) total = line.direction === 'IN' ? total.plus(line.amount) : total.minus(line.amount);
  const difference = total.minus(statement.closingBalance);
  return difference.isZero() ? '0.00' : difference.toFixed(2);
}
