import type { BalanceRule, StatementTemplate, TemplateRow } from './statement-forms';

// The evaluator of the statement forms (statement-forms.ts holds the forms as data): a row's amount from the
// accounts' debits and credits by its ranges' rules, and its formula over other rows.

/**
 * What a statement is computed from: per account (or finer, e.g. per subaccount or counterparty, when the
 * *_IF_POSITIVE rules should split by it) a debit and a credit in minor units, neither negative. For Form 1
 * they are the cumulative debit and credit up to and including the date (a trial balance's totals); for
 * Form 2 the period's turnovers without the closing entries into 9910.
 */
export interface AccountAmount {
  accountCode: string;
  debit: bigint;
  credit: bigint;
}

/** A term of a row formula: a row code and its sign. */
export interface FormulaTerm {
  sign: 1 | -1;
  code: string;
}

const FORMULA = /^[+-]?\d{3}(?:[+-]\d{3})*$/;

/** '410+420-440' → [+410, +420, −440]. Throws on anything but three-digit row codes joined by + and -. */
export function formulaTerms(formula: string): FormulaTerm[] {
  if (!FORMULA.test(formula)) throw new SyntaxError(`not a row formula: ${formula}`);
  return [...formula.matchAll(/([+-]?)(\d{3})/g)].map(([, sign, code]) => ({ sign: sign === '-' ? -1 : 1, code: code! }));
}

function ruleAmount(rule: BalanceRule, debit: bigint, credit: bigint): bigint {
  switch (rule) {
    case 'DEBIT_BALANCE':
    case 'NET_DEBIT':
      return debit - credit;
    case 'CREDIT_BALANCE':
    case 'NET_CREDIT':
      return credit - debit;
    case 'DEBIT_BALANCE_IF_POSITIVE':
      return debit > credit ? debit - credit : 0n;
    case 'CREDIT_BALANCE_IF_POSITIVE':
      return credit > debit ? credit - debit : 0n;
    case 'DEBIT_TURNOVER':
      return debit;
    case 'CREDIT_TURNOVER':
      return credit;
  }
}

const ACCOUNT_CODE = /^\d{4}$/;

/**
 * The amount of every row, in minor units and in the template's order: null for a row without accounts and
 * formula (a heading, or a row balances cannot fill). Accounts outside every range are simply not read.
 * Throws on a formula that names an unknown row or a row without an amount, on a cycle, and on an amount that
 * is not a four-digit account with non-negative debit and credit.
 */
export function evaluateStatement(template: StatementTemplate, amounts: Iterable<AccountAmount>): Map<string, bigint | null> {
  const items = [...amounts];
  for (const item of items) {
    if (!ACCOUNT_CODE.test(item.accountCode)) throw new RangeError(`not a four-digit account code: ${item.accountCode}`);
    if (item.debit < 0n || item.credit < 0n) throw new RangeError(`negative debit or credit on ${item.accountCode}`);
  }
  const rows = new Map<string, TemplateRow>();
  for (const row of template.rows) {
    if (rows.has(row.code)) throw new Error(`row ${row.code} appears twice`);
    if (row.accounts && row.formula !== undefined) throw new Error(`row ${row.code} has both accounts and a formula`);
    rows.set(row.code, row);
  }

  const values = new Map<string, bigint | null>();
  const inProgress = new Set<string>();
  const valueOf = (code: string): bigint | null => {
    if (values.has(code)) return values.get(code)!;
    const row = rows.get(code);
    if (!row) throw new Error(`formula refers to unknown row ${code}`);
    if (inProgress.has(code)) throw new Error(`formula cycle through row ${code}`);
    inProgress.add(code);
    let value: bigint | null = null;
    if (row.formula !== undefined) {
      value = 0n;
      for (const term of formulaTerms(row.formula)) {
        const part = valueOf(term.code);
        if (part === null) throw new Error(`row ${code} refers to row ${term.code}, which has no amount`);
        value += term.sign === 1 ? part : -part;
      }
    } else if (row.accounts) {
      value = 0n;
      for (const range of row.accounts) {
        for (const item of items) {
          if (item.accountCode < range.from || item.accountCode > range.to) continue;
          const amount = ruleAmount(range.rule, item.debit, item.credit);
          value += range.negate ? -amount : amount;
        }
      }
    }
    inProgress.delete(code);
    values.set(code, value);
    return value;
  };

  return new Map(template.rows.map((row) => [row.code, valueOf(row.code)]));
}

/**
 * What a row with accounts is made of: per account code, the amount its ranges read from it (accounts that
 * give nothing are left out). The drill-down of a row; its sum is the row's amount.
 */
export function rowContributions(row: TemplateRow, amounts: Iterable<AccountAmount>): Map<string, bigint> {
  const parts = new Map<string, bigint>();
  for (const range of row.accounts ?? []) {
    for (const item of amounts) {
      if (item.accountCode < range.from || item.accountCode > range.to) continue;
      const amount = ruleAmount(range.rule, item.debit, item.credit);
      if (amount === 0n) continue;
      parts.set(item.accountCode, (parts.get(item.accountCode) ?? 0n) + (range.negate ? -amount : amount));
    }
  }
  return parts;
}
