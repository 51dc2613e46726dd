import { literal } from 'sequelize';
import { Counterparty } from '../../models';
import { selectRows, transactionOf, type Db } from '../../connection';
import { DuplicateRowError, translateStoreError } from '../errors';
import type { CompanyScope } from '../organisation/companies';
import type { BankAccount, CounterpartyDetails, IdentityField } from '../../../core/counterparties/counterparties';

// Operations: listCounterparties, createCounterparty, getCounterparty, updateCounterparty.

export interface CounterpartyRow extends CounterpartyDetails {
  id: string;
  archived: boolean;
  version: number;
}

interface RawRow {
  id: string;
  name: string;
  tin: string | null;
  pinfl: string | null;
  vat_registration_code: string | null;
  bank_accounts: BankAccount[];
  address: string | null;
  payment_terms_days: number;
  archived: boolean;
  version: string;
}

const RAW_COLUMNS = 'id, name, tin, pinfl, vat_registration_code, bank_accounts, address, payment_terms_days, archived, version';
const COLUMNS = ['id', 'name', 'tin', 'pinfl', 'vatRegistrationCode', 'bankAccounts', 'address', 'paymentTermsDays', 'archived', 'version'] as const;

/** The unique keys of migration 2026.11.26T12.00.00.counterparties, by the number they keep unique. */
const IDENTITY_KEYS: Record<string, IdentityField> = { counterparties_tin_key: 'tin', counterparties_pinfl_key: 'pinfl' };

function fromRaw(r: RawRow): CounterpartyRow {
  return {
    id: r.id,
    name: r.name,
    tin: r.tin,
    pinfl: r.pinfl,
    vatRegistrationCode: r.vat_registration_code,
    bankAccounts: r.bank_accounts,
    address: r.address,
    paymentTermsDays: r.payment_terms_days,
    archived: r.archived,
    version: Number(r.version),
  };
}

function fromModel(c: Counterparty): CounterpartyRow {
  return {
    id: c.id,
    name: c.name,
    tin: c.tin,
    pinfl: c.pinfl,
    vatRegistrationCode: c.vatRegistrationCode,
    bankAccounts: c.bankAccounts,
    address: c.address,
    paymentTermsDays: c.paymentTermsDays,
    archived: c.archived,
    version: Number(c.version),
  };
}

const inCompany = (scope: CompanyScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

/** A LIKE pattern matching `text` literally anywhere: `\`, `%` and `_` escaped (backslash is LIKE's escape). */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A page of the company's counterparties, ordered by name then id. `q` matches the name literally and
 * case-insensitively (ILIKE with its wildcards escaped, so the trigram index serves it) and, when it is
 * digits only, the start of the TIN or PINFL. `archived` null lists both.
 */
export async function listCounterparties(
  tx: Db,
  scope: CompanyScope,
  query: { q: string; archived: boolean | null; limit: number; offset: number },
): Promise<{ rows: CounterpartyRow[]; total: number }> {
  const conditions = ['tenant_id = :tenantId', 'legal_entity_id = :legalEntityId'];
  if (query.archived !== null) conditions.push('archived = :archived');
  if (query.q !== '') {
    const matches = ['name ILIKE :namePattern'];
    if (/^[0-9]+$/.test(query.q)) matches.push('tin LIKE :idPrefix', 'pinfl LIKE :idPrefix');
    conditions.push(`(${matches.join(' OR ')})`);
  }
  const where = conditions.join(' AND ');
  const replacements = {
    ...inCompany(scope),
    archived: query.archived,
    namePattern: containing(query.q),
    idPrefix: `${query.q}%`,
    limit: query.limit,
    offset: query.offset,
  };
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM counterparties WHERE ${where}`, replacements);
  const rows = await selectRows<RawRow>(tx, `SELECT ${RAW_COLUMNS} FROM counterparties WHERE ${where} ORDER BY name, id LIMIT :limit OFFSET :offset`, replacements);
  return { rows: rows.map(fromRaw), total: Number(counted!.total) };
}

/** The counterparty, archived or not; `lock` holds it FOR UPDATE until the transaction ends. */
export async function findCounterparty(tx: Db, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<CounterpartyRow | null> {
  const transaction = transactionOf(tx);
  const row = await Counterparty.findOne({
    attributes: [...COLUMNS],
    where: { ...inCompany(scope), id },
    transaction,
    ...(options.lock && transaction ? { lock: transaction.LOCK.UPDATE } : {}),
  });
  return row ? fromModel(row) : null;
}

/** Null when the TIN or PINFL is the company's already (the insert then does nothing), active at version 1 otherwise. */
export async function insertCounterparty(tx: Db, scope: CompanyScope, counterparty: CounterpartyDetails & { id: string }): Promise<CounterpartyRow | null> {
  // Raw SQL: ON CONFLICT DO NOTHING lets one of concurrent creates win without aborting the others' transactions.
  const [row] = await selectRows<RawRow>(
    tx,
    `INSERT INTO counterparties (tenant_id, id, legal_entity_id, name, tin, pinfl, vat_registration_code, bank_accounts, address, payment_terms_days, archived, version)
     VALUES (:tenantId, :id, :legalEntityId, :name, :tin, :pinfl, :vatRegistrationCode, CAST(:bankAccounts AS jsonb), :address, :paymentTermsDays, false, 1)
     ON CONFLICT DO NOTHING
     RETURNING ${RAW_COLUMNS}`,
    { ...inCompany(scope), ...counterparty, bankAccounts: JSON.stringify(counterparty.bankAccounts) },
  );
  return row ? fromRaw(row) : null;
}

export type ReplaceOutcome = { kind: 'saved'; row: CounterpartyRow } | { kind: 'stale' } | { kind: 'identity-taken'; field: IdentityField };

/**
 * Replaces the details and the archived flag, version + 1, when the stored version is still `expectedVersion`
 * (`stale` otherwise, or when the counterparty is not there); `identity-taken` when another counterparty of the
 * company has the TIN or PINFL (the transaction is then aborted: end it).
 */
export async function replaceCounterparty(
  tx: Db,
  scope: CompanyScope,
  change: CounterpartyDetails & { id: string; archived: boolean; expectedVersion: number },
): Promise<ReplaceOutcome> {
  const { id, expectedVersion, ...values } = change;
  try {
    const [, rows] = await Counterparty.update(
      { ...values, version: literal('version + 1') as unknown as string, updatedAt: new Date() },
      { where: { ...inCompany(scope), id, version: String(expectedVersion) }, returning: true, transaction: transactionOf(tx) },
    );
    return rows[0] ? { kind: 'saved', row: fromModel(rows[0]) } : { kind: 'stale' };
  } catch (err) {
    const typed = translateStoreError(err);
    const field = typed instanceof DuplicateRowError && typed.constraint ? IDENTITY_KEYS[typed.constraint] : undefined;
    if (field) return { kind: 'identity-taken', field };
    throw typed;
  }
}
