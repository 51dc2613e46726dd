import Decimal from 'decimal.js';
import { RE2JS } from 're2js';
import { AppError } from '../shared/problems';
import { allocateOldestFirst, type OpenInvoice } from '../payments/payments';
import type { InvoiceProposal } from './lines';

// The company's matching rules for bank statement lines: ordered by priority, every condition given must
// hold, and the first rule that holds proposes its action. Pure: the import applies them to its new lines.
//
// A purpose pattern is a regular expression in RE2's syntax, run by re2js: matching takes time linear in the
// purpose (at most 1,000 characters) whatever the pattern, so a pattern cannot hold the import up (no
// catastrophic backtracking); look-arounds and back-references, which need backtracking, are refused (400).

export interface RuleConditions {
  direction?: 'IN' | 'OUT';
  counterpartyTin?: string;
  counterpartyAccount?: string;
  amountEquals?: string;
  amountTolerance?: string;
  purposeContains?: string;
  purposePattern?: string;
  reference?: string;
}

export type RuleAction = { type: 'SETTLE_INVOICES' } | { type: 'POST_TO_ACCOUNT'; accountCode: string };

export interface MatchingRule {
  id: string;
  name: string;
  priority: number;
  enabled: boolean;
  conditions: RuleConditions;
  action: RuleAction;
  /** The import confirms what the rule proposes, posting it, instead of leaving it for a person. */
  autoConfirm: boolean;
}

export interface AccountProposal {
  type: 'POST_TO_ACCOUNT';
  accountCode: string;
  ruleId: string;
  reason: string;
  /** As InvoiceProposal's. */
  autoConfirm?: boolean;
}

export type LineProposal = InvoiceProposal | AccountProposal;

/** What a rule looks at of a line. */
export interface RuleLine {
  direction: 'IN' | 'OUT';
  amount: string;
  counterpartyTin: string | null;
  counterpartyAccount: string | null;
  purpose: string;
  reference: string | null;
}

/** The compiled pattern, case-insensitive; a 400 naming the field when RE2 cannot take it. */
export function compilePattern(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new AppError('validation', `The purpose pattern is not a regular expression this service runs: ${reason}`, {
      errors: [{ path: '/body/conditions/purposePattern', message: `not an RE2 regular expression (${reason.slice(0, 200)})` }],
    });
  }
}

/** The rule's conditions checked as a whole: a tolerance needs an amount; a pattern must compile. */
export function checkConditions(conditions: RuleConditions): void {
  if (conditions.amountTolerance !== undefined && conditions.amountEquals === undefined) {
    throw new AppError('validation', 'A tolerance is around an amount', { errors: [{ path: '/body/conditions/amountTolerance', message: 'needs amountEquals' }] });
  }
  if (conditions.purposePattern !== undefined) compilePattern(conditions.purposePattern);
}

/** Whether every condition the rule gives holds for the line. */
export function ruleHolds(rule: Pick<MatchingRule, 'conditions'>, line: RuleLine, patterns = new Map<string, RE2JS>()): boolean {
  const c = rule.conditions;
  if (c.direction !== undefined && c.direction !== line.direction) return false;
  if (c.counterpartyTin !== undefined && c.counterpartyTin !== line.counterpartyTin) return false;
  if (c.counterpartyAccount !== undefined && c.counterpartyAccount !== line.counterpartyAccount) return false;
  if (c.reference !== undefined && c.reference !== line.reference) return false;
  if (c.amountEquals !== undefined) {
    const off = new Decimal(line.amount).minus(c.amountEquals).abs();
    if (off.greaterThan(c.amountTolerance ?? 0)) return false;
  }
  if (c.purposeContains !== undefined && !line.purpose.toLocaleLowerCase('ru').includes(c.purposeContains.toLocaleLowerCase('ru'))) return false;
  if (c.purposePattern !== undefined) {
    let pattern = patterns.get(c.purposePattern);
    if (!pattern) patterns.set(c.purposePattern, (pattern = compilePattern(c.purposePattern)));
    if (!pattern.matcher(line.purpose).find()) return false;
  }
  return true;
}

/** The enabled rules in the order they are tried: priority, then the order they were made (their list order). */
export function rulesInOrder(rules: MatchingRule[]): MatchingRule[] {
  return rules.filter((r) => r.enabled).sort((a, b) => a.priority - b.priority);
}

/**
 * What SETTLE_INVOICES proposes for a line of a counterparty: the open invoice of exactly the line's amount
 * when there is one (the oldest of several), else the open invoices oldest first up to the amount (what is
 * left is an advance). Null when the counterparty has nothing open.
 */
export function settleInvoices(
  line: Pick<RuleLine, 'amount'>,
  counterpartyId: string,
  open: OpenInvoice[],
  currency: string,
  reason: string,
): InvoiceProposal | null {
  const amount = new Decimal(line.amount);
  const exact = allocateOldestFirst(
    open.filter((i) => amount.equals(i.outstanding)),
    amount,
    currency,
  );
  const allocations = exact.length > 0 ? exact.slice(0, 1) : allocateOldestFirst(open, amount, currency);
  if (allocations.length === 0) return null;
  const numbers = new Map(open.map((i) => [i.id, i.number]));
  return { type: 'SETTLE_INVOICES', counterpartyId, allocations: allocations.map((a) => ({ ...a, invoiceNumber: numbers.get(a.invoiceId) ?? null })), reason };
}
