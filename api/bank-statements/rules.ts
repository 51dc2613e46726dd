import { randomUUID } from 'node:crypto';
import { deleteRule, findRule, insertRule, listRules, replaceRule, type RuleFields, type RuleRow } from '../../db/repositories/bank-statements/rules';
import { checkConditions, type RuleConditions } from '../../core/bank-statements/rules';
import { AppError } from '../../core/shared/problems';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScopes } from '../organisation/company-scope';

type Rule = Schemas['BankMatchingRule'];

const SUBJECT = 'BANK_MATCHING_RULE';

const toRule = (row: RuleRow): Rule => ({
  id: row.id,
  name: row.name,
  priority: row.priority,
  enabled: row.enabled,
  conditions: row.conditions,
  action: row.action,
  autoConfirm: row.autoConfirm,
  version: row.version,
});

/** The body's fields as stored: the name trimmed, the conditions checked together, the action's account where it belongs. */
function fieldsOf(input: Schemas['BankMatchingRuleCreate']): RuleFields {
  const conditions = input.conditions as RuleConditions;
  checkConditions(conditions);
  const action = input.action;
  if (action.type === 'POST_TO_ACCOUNT' && !action.accountCode) {
    throw new AppError('validation', 'Name the account to post to', { errors: [{ path: '/body/action/accountCode', message: 'is required for POST_TO_ACCOUNT' }] });
  }
  if (action.type === 'SETTLE_INVOICES' && action.accountCode !== undefined) {
    throw new AppError('validation', 'SETTLE_INVOICES posts to no account', { errors: [{ path: '/body/action/accountCode', message: 'only with POST_TO_ACCOUNT' }] });
  }
  return {
    name: input.name.trim(),
    priority: input.priority,
    enabled: input.enabled ?? true,
    conditions,
    action: action.type === 'POST_TO_ACCOUNT' ? { type: 'POST_TO_ACCOUNT', accountCode: action.accountCode! } : { type: 'SETTLE_INVOICES' },
    autoConfirm: input.autoConfirm ?? false,
  };
}

/** The company's rules for matching bank statement lines. */
export function createBankMatchingRules(companies: CompanyScopes) {
  async function listBankMatchingRules(principal: Principal, legalEntityId: string, query: PageQuery): Promise<Schemas['BankMatchingRulePage']> {
    const { rows, total } = await companies.read(principal, legalEntityId, (tx, scope) => listRules(tx, scope, { limit: query.size, offset: query.page * query.size }));
    return pageOf(rows.map(toRule), query, total);
  }

  async function createBankMatchingRule(principal: Principal, legalEntityId: string, input: Schemas['BankMatchingRuleCreate'], ctx: RequestContext): Promise<Rule> {
    const fields = fieldsOf(input);
    return companies.change(principal, legalEntityId, async (tx, scope) => {
      const row = await insertRule(tx, scope, randomUUID(), fields);
      await recordCallerEvent(tx, principal, ctx, { action: 'bank-matching-rule.created', subjectType: SUBJECT, subjectId: row.id, details: `"${row.name}", priority ${row.priority}, ${row.action.type}${row.autoConfirm ? ', confirmed by itself' : ''}` });
      return toRule(row);
    });
  }

  async function updateBankMatchingRule(principal: Principal, legalEntityId: string, id: string, input: Schemas['BankMatchingRuleUpdate'], ctx: RequestContext): Promise<Rule> {
    const fields = fieldsOf(input);
    return companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const current = await findRule(tx, scope, id, { lock: true });
        if (!current) throw new AppError('not-found', 'No matching rule with this id in this company');
        const row = await replaceRule(tx, scope, id, fields, input.expectedVersion);
        if (!row) throw new AppError('stale-version', `The rule changed since version ${input.expectedVersion}; reload it and retry`);
        await recordCallerEvent(tx, principal, ctx, { action: 'bank-matching-rule.updated', subjectType: SUBJECT, subjectId: id, details: `version ${row.version}: "${row.name}", priority ${row.priority}` });
        return toRule(row);
      },
      async (tx, scope) => {
        if (!(await findRule(tx, scope, id))) throw new AppError('not-found', 'No matching rule with this id in this company');
      },
    );
  }

  async function deleteBankMatchingRule(principal: Principal, legalEntityId: string, id: string, ctx: RequestContext): Promise<void> {
    await companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const current = await findRule(tx, scope, id, { lock: true });
        if (!current || !(await deleteRule(tx, scope, id))) throw new AppError('not-found', 'No matching rule with this id in this company');
        await recordCallerEvent(tx, principal, ctx, { action: 'bank-matching-rule.deleted', subjectType: SUBJECT, subjectId: id, details: `"${current.name}"` });
      },
      async (tx, scope) => {
        if (!(await findRule(tx, scope, id))) throw new AppError('not-found', 'No matching rule with this id in this company');
      },
    );
  }

  return { listBankMatchingRules, createBankMatchingRule, updateBankMatchingRule, deleteBankMatchingRule };
}
