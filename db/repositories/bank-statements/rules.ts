import { selectRows, type Db, type Tx } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { MatchingRule, RuleAction, RuleConditions } from '../../../core/bank-statements/rules';
import type { OpenInvoice } from '../../../core/payments/payments';

// Operations: listBankMatchingRules, createBankMatchingRule, updateBankMatchingRule, deleteBankMatchingRule, and
// the import's matching step (the rules in order, the open invoices of the counterparties the lines name).

export interface RuleRow extends MatchingRule {
  version: number;
  createdAt: Date;
}

interface RawRule {
  id: string;
  name: string;
  priority: number;
  enabled: boolean;
  conditions: RuleConditions;
  action_type: RuleAction['type'];
  account_code: string | null;
  auto_confirm: boolean;
  version: string;
  created_at: Date;
}

const COLUMNS = 'id, name, priority, enabled, conditions, action_type, account_code, auto_confirm, version, created_at';

const ruleOf = (r: RawRule): RuleRow => ({
  id: r.id,
  name: r.name,
  priority: r.priority,
  enabled: r.enabled,
  conditions: r.conditions,
  action: r.action_type === 'POST_TO_ACCOUNT' ? { type: 'POST_TO_ACCOUNT', accountCode: r.account_code! } : { type: 'SETTLE_INVOICES' },
  autoConfirm: r.auto_confirm,
  version: Number(r.version),
  createdAt: r.created_at,
});

const inCompany = (scope: CompanyScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

/** The company's rules in the order they are tried: priority, then the order they were made. */
export async function listRules(tx: Db, scope: CompanyScope, page?: { limit: number; offset: number }): Promise<{ rows: RuleRow[]; total: number }> {
  const where = 'tenant_id = :tenantId AND legal_entity_id = :legalEntityId';
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM bank_matching_rules WHERE ${where}`, inCompany(scope));
  const rows = await selectRows<RawRule>(
    tx,
    `SELECT ${COLUMNS} FROM bank_matching_rules WHERE ${where} ORDER BY priority, created_at, id${page ? ' LIMIT :limit OFFSET :offset' : ''}`,
    { ...inCompany(scope), ...page },
  );
  return { rows: rows.map(ruleOf), total: Number(counted!.total) };
}

export async function findRule(tx: Db, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<RuleRow | null> {
  const [row] = await selectRows<RawRule>(
    tx,
    `SELECT ${COLUMNS} FROM bank_matching_rules WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id${options.lock ? ' FOR UPDATE' : ''}`,
    { ...inCompany(scope), id },
  );
  return row ? ruleOf(row) : null;
}

export interface RuleFields {
  name: string;
  priority: number;
  enabled: boolean;
  conditions: RuleConditions;
  action: RuleAction;
  autoConfirm: boolean;
}

const fieldsOf = (f: RuleFields) => ({
  name: f.name,
  priority: f.priority,
  enabled: f.enabled,
  conditions: JSON.stringify(f.conditions),
  actionType: f.action.type,
  accountCode: f.action.type === 'POST_TO_ACCOUNT' ? f.action.accountCode : null,
  autoConfirm: f.autoConfirm,
});

export async function insertRule(tx: Tx, scope: CompanyScope, id: string, fields: RuleFields): Promise<RuleRow> {
  const [row] = await selectRows<RawRule>(
    tx,
    `INSERT INTO bank_matching_rules (tenant_id, id, legal_entity_id, name, priority, enabled, conditions, action_type, account_code, auto_confirm, version)
     VALUES (:tenantId, :id, :legalEntityId, :name, :priority, :enabled, CAST(:conditions AS jsonb), :actionType, :accountCode, :autoConfirm, 1)
     RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id, ...fieldsOf(fields) },
  );
  return ruleOf(row!);
}

/** Replaces the rule at `expectedVersion`; null when the version is not the stored one. */
export async function replaceRule(tx: Tx, scope: CompanyScope, id: string, fields: RuleFields, expectedVersion: number): Promise<RuleRow | null> {
  const [row] = await selectRows<RawRule>(
    tx,
    `UPDATE bank_matching_rules SET name = :name, priority = :priority, enabled = :enabled, conditions = CAST(:conditions AS jsonb), action_type = :actionType,
            account_code = :accountCode, auto_confirm = :autoConfirm, version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND version = :expectedVersion
      RETURNING ${COLUMNS}`,
    { ...inCompany(scope), id, expectedVersion, ...fieldsOf(fields) },
  );
  return row ? ruleOf(row) : null;
}

export async function deleteRule(tx: Tx, scope: CompanyScope, id: string): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(tx, 'DELETE FROM bank_matching_rules WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id RETURNING id', {
    ...inCompany(scope),
    id,
  });
  return rows.length === 1;
}

/** A counterparty a line's TIN or PINFL names, and its open posted invoices of a kind and currency dated by `date`. */
export interface CounterpartyInvoices {
  counterpartyId: string;
  tin: string;
  invoices: Array<OpenInvoice & { kind: 'SALES' | 'PURCHASE' }>;
}

/** The active counterparties whose TIN or PINFL is among `tins`, each with its open invoices in `currency`. */
export async function openInvoicesByTin(tx: Db, scope: CompanyScope, query: { tins: string[]; currency: string }): Promise<CounterpartyInvoices[]> {
  if (query.tins.length === 0) return [];
  const rows = await selectRows<{
    counterparty_id: string;
    tin: string;
    id: string | null;
    number: string | null;
    invoice_date: string | null;
    due_date: string | null;
    outstanding: string | null;
    kind: 'SALES' | 'PURCHASE' | null;
  }>(
    tx,
    `SELECT c.id AS counterparty_id, coalesce(c.tin, c.pinfl) AS tin, i.id, i.number, to_char(i.invoice_date, 'YYYY-MM-DD') AS invoice_date,
            to_char(i.due_date, 'YYYY-MM-DD') AS due_date, (i.total_gross - i.allocated)::text AS outstanding, i.kind
       FROM counterparties c
       LEFT JOIN invoices i ON i.tenant_id = c.tenant_id AND i.legal_entity_id = c.legal_entity_id AND i.counterparty_id = c.id
                           AND i.status = 'POSTED' AND i.currency = :currency AND i.allocated < i.total_gross
      WHERE c.tenant_id = :tenantId AND c.legal_entity_id = :legalEntityId AND NOT c.archived
        AND (c.tin = ANY(CAST(:tins AS text[])) OR c.pinfl = ANY(CAST(:tins AS text[])))`,
    { ...inCompany(scope), currency: query.currency, tins: `{${query.tins.map((t) => `"${t.replace(/["\\]/g, '')}"`).join(',')}}` },
  );
  const byCounterparty = new Map<string, CounterpartyInvoices>();
  for (const r of rows) {
    const entry = byCounterparty.get(r.counterparty_id) ?? { counterpartyId: r.counterparty_id, tin: r.tin, invoices: [] };
    if (r.id) entry.invoices.push({ id: r.id, number: r.number, invoiceDate: r.invoice_date!, dueDate: r.due_date!, outstanding: r.outstanding!, kind: r.kind! });
    byCounterparty.set(r.counterparty_id, entry);
  }
  return [...byCounterparty.values()];
}
