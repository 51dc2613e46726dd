import type { MigrationContext } from './context';
import { NAS21_CHART_OF_ACCOUNTS } from '../seeds/2026.11.21T08.00.00.nas21-chart-of-accounts';

// The global chart of accounts (shared by every tenant, read-only to the application), the company's
// account overrides and custom accounts, subaccounts and accounting settings. Company tables follow the
// foundation's rules: tenant_id leads every key, row-level security keyed on app.tenant_id.

const TENANT_TABLES = ['company_accounts', 'company_subaccounts', 'company_accounting_settings'];
const ACCOUNT_TYPES = `('ASSET', 'CONTRA_ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE')`;

function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE global_accounts (
      code text PRIMARY KEY CHECK (code ~ '^[0-9]{4}$'),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      type text NOT NULL CHECK (type IN ${ACCOUNT_TYPES})
    );

    -- One row per configured global account (custom = false: name and enabled override the global row,
    -- type stays the global one) or per company-created account (custom = true: carries its own type).
    CREATE TABLE company_accounts (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      code text NOT NULL CHECK (code ~ '^[0-9]{4}$'),
      custom boolean NOT NULL,
      name text NOT NULL CHECK (length(name) <= 200),
      type text CHECK (type IN ${ACCOUNT_TYPES}),
      enabled boolean NOT NULL,
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, legal_entity_id, code),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      CHECK (custom = (type IS NOT NULL))
    );

    CREATE TABLE company_subaccounts (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      parent_code text NOT NULL CHECK (parent_code ~ '^[0-9]{4}$'),
      code text NOT NULL CHECK (code ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$'),
      name text NOT NULL CHECK (length(name) <= 200),
      enabled boolean NOT NULL,
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, legal_entity_id, parent_code, code),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id)
    );

    CREATE TABLE company_accounting_settings (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      depreciation_method text NOT NULL CHECK (depreciation_method IN ('STRAIGHT_LINE')),
      inventory_valuation_method text NOT NULL CHECK (inventory_valuation_method IN ('FIFO')),
      tax_regime text NOT NULL CHECK (tax_regime IN ('GENERAL', 'SIMPLIFIED')),
      vat_rate numeric(5, 2) NOT NULL CHECK (vat_rate BETWEEN 0 AND 100),
      version bigint NOT NULL CHECK (version >= 1),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, legal_entity_id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id)
    );

    -- The global chart changes only through migrations, never through the application.
    REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON global_accounts FROM ${appRole};
    GRANT SELECT ON global_accounts TO ${appRole};
  `);
  const values = NAS21_CHART_OF_ACCOUNTS.map((a) => `(${literal(a.code)}, ${literal(a.name)}, ${literal(a.type)})`).join(',\n');
  await sql(`INSERT INTO global_accounts (code, name, type) VALUES ${values};`);
  for (const table of TENANT_TABLES) {
    await sql(`
      ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
      CREATE POLICY tenant_isolation ON ${table}
        USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    `);
  }
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP TABLE IF EXISTS company_accounting_settings, company_subaccounts, company_accounts, global_accounts;`);
}
