import { selectRows, type Db } from '../../connection';
import { DuplicateRowError } from '../errors';
import type { CompanyScope } from '../organisation/companies';
import type { BankAccountDetails, GlAccountState } from '../../../core/bank-accounts/bank-accounts';

// Operations: listBankAccounts, createBankAccount, getBankAccount, updateBankAccount. Raw SQL throughout:
// the create is INSERT … ON CONFLICT DO NOTHING and the update is conditional on the version.

export interface BankAccountRow extends BankAccountDetails {
  id: string;
  archived: boolean;
  version: number;
}

interface RawRow {
  id: string;
  bank_code: string;
  account_number: string;
  currency: string;
  account_code: string;
  name: string;
  archived: boolean;
  version: string;
}

const RAW_COLUMNS = 'id, bank_code, account_number, currency, account_code, name, archived, version';

/** The unique key of migration 2026.11.28T09.00.00.bank-accounts that keeps an account number once per company. */
const ACCOUNT_NUMBER_KEY = 'bank_accounts_account_number_key';

function fromRaw(r: RawRow): BankAccountRow {
  return {
    id: r.id,
    bankCode: r.bank_code,
    accountNumber: r.account_number,
    currency: r.currency,
    accountCode: r.account_code,
    name: r.name,
    archived: r.archived,
    version: Number(r.version),
  };
}

const inCompany = (scope: CompanyScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

/** A page of the company's bank accounts, ordered by name then id; `archived` null lists both. */
export async function listBankAccounts(
  tx: Db,
  scope: CompanyScope,
  query: { archived: boolean | null; limit: number; offset: number },
): Promise<{ rows: BankAccountRow[]; total: number }> {
  const conditions = ['tenant_id = :tenantId', 'legal_entity_id = :legalEntityId'];
  if (query.archived !== null) conditions.push('archived = :archived');
  const where = conditions.join(' AND ');
  const replacements = { ...inCompany(scope), archived: query.archived, limit: query.limit, offset: query.offset };
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM bank_accounts WHERE ${where}`, replacements);
  const rows = await selectRows<RawRow>(tx, `SELECT ${RAW_COLUMNS} FROM bank_accounts WHERE ${where} ORDER BY name, id LIMIT :limit OFFSET :offset`, replacements);
  return { rows: rows.map(fromRaw), total: Number(counted!.total) };
}

/** The bank account, archived or not; `lock` holds it FOR UPDATE until the transaction ends. */
export async function findBankAccount(tx: Db, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<BankAccountRow | null> {
  const [row] = await selectRows<RawRow>(
    tx,
    `SELECT ${RAW_COLUMNS} FROM bank_accounts WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id${options.lock ? ' FOR UPDATE' : ''}`,
    { ...inCompany(scope), id },
  );
  return row ? fromRaw(row) : null;
}

/**
 * What the company's chart says of a GL account: absent (neither a global account nor the company's custom
 * one), a header (a global group with accounts under it; its detail accounts by code) or a detail account.
 */
export async function glAccountState(tx: Db, scope: CompanyScope, code: string): Promise<GlAccountState> {
  const [row] = await selectRows<{ known: boolean; details: string[] }>(
    tx,
    `SELECT (EXISTS (SELECT 1 FROM global_accounts WHERE code = :code)
             OR EXISTS (SELECT 1 FROM company_accounts
                         WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND code = :code AND custom)) AS known,
            ARRAY(SELECT d.code FROM global_accounts d WHERE d.parent_code = :code ORDER BY d.code COLLATE "C") AS details`,
    { ...inCompany(scope), code },
  );
  if (!row!.known) return { kind: 'absent' };
  return row!.details.length > 0 ? { kind: 'header', details: row!.details } : { kind: 'detail' };
}

/** Null when the account number is the company's already (the insert then does nothing), active at version 1 otherwise. */
export async function insertBankAccount(tx: Db, scope: CompanyScope, account: BankAccountDetails & { id: string }): Promise<BankAccountRow | null> {
  // ON CONFLICT DO NOTHING lets one of concurrent creates win without aborting the others' transactions.
  const [row] = await selectRows<RawRow>(
    tx,
    `INSERT INTO bank_accounts (tenant_id, id, legal_entity_id, bank_code, account_number, currency, account_code, name, archived, version)
     VALUES (:tenantId, :id, :legalEntityId, :bankCode, :accountNumber, :currency, :accountCode, :name, false, 1)
     ON CONFLICT DO NOTHING
     RETURNING ${RAW_COLUMNS}`,
    { ...inCompany(scope), ...account },
  );
  return row ? fromRaw(row) : null;
}

export type ReplaceOutcome = { kind: 'saved'; row: BankAccountRow } | { kind: 'stale' } | { kind: 'number-taken' };

/**
 * Replaces the details and the archived flag, version + 1, when the stored version is still `expectedVersion`
 * (`stale` otherwise, or when the account is not there); `number-taken` when another bank account of the
 * company has the account number (the transaction is then aborted: end it).
 */
export async function replaceBankAccount(
  tx: Db,
  scope: CompanyScope,
  change: BankAccountDetails & { id: string; archived: boolean; expectedVersion: number },
): Promise<ReplaceOutcome> {
  try {
    const [row] = await selectRows<RawRow>(
      tx,
      `UPDATE bank_accounts
          SET bank_code = :bankCode, account_number = :accountNumber, currency = :currency, account_code = :accountCode, name = :name,
              archived = :archived, version = version + 1, updated_at = now()
        WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND version = :expectedVersion
        RETURNING ${RAW_COLUMNS}`,
      { ...inCompany(scope), ...change },
    );
    return row ? { kind: 'saved', row: fromRaw(row) } : { kind: 'stale' };
  } catch (err) {
    if (err instanceof DuplicateRowError && err.constraint === ACCOUNT_NUMBER_KEY) return { kind: 'number-taken' };
    throw err;
  }
}
