import { fn, literal } from 'sequelize';
import { CompanyAccount } from '../../models';
import { selectRows, transactionOf, type Db, type Statement } from '../../connection';
import type { AccountType } from '../../../core/ledger/accounts';
import type { CompanyScope } from '../organisation/companies';

export type { CompanyScope };

// The company's chart is the global chart merged with the company's rows: its reads are raw SQL (a query over
// two tables that the models cannot express), and so are its inserts (conditional on the global chart, and
// ON CONFLICT DO NOTHING so that one of concurrent creates wins). A saved override is one row: the model.

export interface CompanyAccountRow {
  code: string;
  name: string;
  type: AccountType;
  enabled: boolean;
  custom: boolean;
  /** A global group with accounts under it: lines and subaccounts go to its detail accounts. */
  header: boolean;
  subaccountCount: number;
  version: number;
}

interface RawAccount {
  code: string;
  name: string;
  type: AccountType;
  enabled: boolean;
  custom: boolean;
  header: boolean;
  subaccount_count: string;
  version: string;
}

// The company's chart: every global account with the company's name/enabled override (version 0 while
// there is none), plus the company's custom accounts. Codes never collide between the two halves.
const COMPANY_CHART = `
  WITH chart AS (
    SELECT g.code, COALESCE(o.name, g.name) AS name, g.type, COALESCE(o.enabled, true) AS enabled,
           false AS custom, EXISTS (SELECT 1 FROM global_accounts d WHERE d.parent_code = g.code) AS header,
           COALESCE(o.version, 0) AS version
      FROM global_accounts g
      LEFT JOIN company_accounts o
        ON o.tenant_id = :tenantId AND o.legal_entity_id = :legalEntityId AND o.code = g.code AND NOT o.custom
    UNION ALL
    SELECT c.code, c.name, c.type, c.enabled, true, false, c.version
      FROM company_accounts c
     WHERE c.tenant_id = :tenantId AND c.legal_entity_id = :legalEntityId AND c.custom
  )`;

const SUBACCOUNT_COUNT = `(SELECT count(*) FROM company_subaccounts s
   WHERE s.tenant_id = :tenantId AND s.legal_entity_id = :legalEntityId AND s.parent_code = chart.code)`;

function toRow(r: RawAccount): CompanyAccountRow {
  return {
    code: r.code,
    name: r.name,
    type: r.type,
    enabled: r.enabled,
    custom: r.custom,
    header: r.header,
    subaccountCount: Number(r.subaccount_count),
    version: Number(r.version),
  };
}

type ChartQuery = { q: string; type: AccountType | null; header: boolean | null; limit: number; offset: number };

/**
 * One page of the company's chart with the count of all matches, in one statement. The search and the page
 * live in the function app_company_chart_page (the chart of COMPANY_CHART, searched literally by code or
 * name, ordered by code) so that PostgreSQL keeps its plan instead of planning it on every request.
 */
export function companyChartPageStatement(scope: CompanyScope, query: ChartQuery): Statement {
  return {
    sql: `SELECT * FROM app_company_chart_page(:tenantId, :legalEntityId, :q, CAST(:type AS text), CAST(:header AS boolean), :limit, :offset)`,
    replacements: { ...scope, ...query },
  };
}

/** The page read by companyChartPageStatement; `countAll` counts only when the page is past the end. */
export async function companyChartPageOf(
  rows: Record<string, unknown>[],
  countAll: () => Promise<number>,
): Promise<{ rows: CompanyAccountRow[]; total: number }> {
  const raw = rows as unknown as Array<RawAccount & { total: string }>;
  return { rows: raw.map(toRow), total: raw[0] ? Number(raw[0].total) : await countAll() };
}

/** The count of all matches, for a page past the end (which carries no row to read the total from). */
export async function countCompanyChart(tx: Db, scope: CompanyScope, query: ChartQuery): Promise<number> {
  const firstRow = companyChartPageStatement(scope, { ...query, limit: 1, offset: 0 });
  const [first] = await selectRows<{ total: string }>(tx, firstRow.sql, firstRow.replacements);
  return first ? Number(first.total) : 0;
}

export async function findCompanyAccount(tx: Db, scope: CompanyScope, code: string): Promise<CompanyAccountRow | null> {
  const rows = await selectRows<RawAccount>(
    tx,
    `${COMPANY_CHART} SELECT chart.*, ${SUBACCOUNT_COUNT} AS subaccount_count FROM chart WHERE chart.code = :code`,
    { ...scope, code },
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/** The accounts of the global chart under a header (5100 → 5110, …), by code. */
export async function detailAccountsOf(tx: Db, headerCode: string): Promise<string[]> {
  const rows = await selectRows<{ code: string }>(tx, 'SELECT code FROM global_accounts WHERE parent_code = :headerCode ORDER BY code COLLATE "C"', { headerCode });
  return rows.map((r) => r.code);
}

/** False when the code exists in the global chart or the company's (the insert then does nothing). */
export async function insertCustomAccount(
  tx: Db,
  scope: CompanyScope,
  account: { code: string; name: string; type: AccountType; enabled: boolean },
): Promise<boolean> {
  const rows = await selectRows(
    tx,
    `INSERT INTO company_accounts (tenant_id, legal_entity_id, code, custom, name, type, enabled, version)
     SELECT :tenantId, :legalEntityId, :code, true, :name, :type, :enabled, 1
      WHERE NOT EXISTS (SELECT 1 FROM global_accounts WHERE code = :code)
     ON CONFLICT DO NOTHING
     RETURNING code`,
    { ...scope, ...account },
  );
  return rows.length === 1;
}

/**
 * Saves name and enabled when the stored version is still `expectedVersion`; returns the new version or
 * null when it is stale. Version 0 is a global account without an override: the first save creates it,
 * and of concurrent first saves only one insert wins.
 */
export async function saveAccountConfiguration(
  tx: Db,
  scope: CompanyScope,
  change: { code: string; name: string; enabled: boolean; expectedVersion: number },
): Promise<number | null> {
  if (change.expectedVersion === 0) {
    const [row] = await selectRows<{ version: string }>(
      tx,
      `INSERT INTO company_accounts (tenant_id, legal_entity_id, code, custom, name, type, enabled, version)
       SELECT :tenantId, :legalEntityId, code, false, :name, NULL, :enabled, 1 FROM global_accounts WHERE code = :code
       ON CONFLICT DO NOTHING
       RETURNING version`,
      { ...scope, ...change },
    );
    return row ? Number(row.version) : null;
  }
  const [, rows] = await CompanyAccount.update(
    { name: change.name, enabled: change.enabled, version: literal('version + 1') as unknown as string, updatedAt: fn('now') as unknown as Date },
    {
      where: { tenantId: scope.tenantId, legalEntityId: scope.legalEntityId, code: change.code, version: String(change.expectedVersion) },
      returning: true,
      transaction: transactionOf(tx),
    },
  );
  return rows[0] ? Number(rows[0].version) : null;
}
