import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import {
  findBankAccount,
  glAccountState,
  insertBankAccount,
  listBankAccounts as listBankAccountRows,
  replaceBankAccount,
  type BankAccountRow,
} from '../../db/repositories/bank-accounts/bank-accounts';
import { accountNumberTaken, bankAccountDetailsOf, glAccountProblem, type BankAccountDetails } from '../../core/bank-accounts/bank-accounts';
import { AppError } from '../../core/shared/problems';
import type { Schemas } from '../http/operation-handler';
import type { Principal, RequestContext } from '../http/context';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import { pageOf, type ArchivedFilter, type PageQuery } from '../http/pages';

type BankAccount = Schemas['BankAccount'];

const SUBJECT = 'BANK_ACCOUNT';

async function requireBankAccount(tx: Tx, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<BankAccountRow> {
  const row = await findBankAccount(tx, scope, id, options);
  // Another company's or tenant's account is not there either: the caller learns nothing about it.
  if (!row) throw new AppError('not-found', 'No bank account with this id in this company');
  return row;
}

/** The GL account must be a detail account of the company's chart: 400 `unknown-account` or `header-account` otherwise. */
async function requireGlAccount(tx: Tx, scope: CompanyScope, details: BankAccountDetails): Promise<void> {
  const problem = glAccountProblem(details.accountCode, await glAccountState(tx, scope, details.accountCode));
  if (problem) throw problem;
}

/** The register of the company's own bank accounts, the accounts bank statements are imported into. */
export function createBankAccounts(companies: CompanyScopes) {
  async function listBankAccounts(principal: Principal, legalEntityId: string, query: PageQuery & { archived: ArchivedFilter }): Promise<Schemas['BankAccountPage']> {
    const archived = query.archived === 'all' ? null : query.archived === 'true';
    const { rows, total } = await companies.read(principal, legalEntityId, (tx, company) =>
      listBankAccountRows(tx, company, { archived, limit: query.size, offset: query.page * query.size }),
    );
    return pageOf(rows, query, total);
  }

  async function getBankAccount(principal: Principal, legalEntityId: string, id: string): Promise<BankAccount> {
    return companies.read(principal, legalEntityId, (tx, company) => requireBankAccount(tx, company, id));
  }

  async function createBankAccount(principal: Principal, legalEntityId: string, input: Schemas['BankAccountCreate'], ctx: RequestContext): Promise<BankAccount> {
    const details = bankAccountDetailsOf(input);
    return companies.change(principal, legalEntityId, async (tx, company) => {
      await requireGlAccount(tx, company, details);
      const row = await insertBankAccount(tx, company, { id: randomUUID(), ...details });
      // The only unique key besides a fresh id is the account number's.
      if (!row) throw accountNumberTaken(details.accountNumber);
      await recordCallerEvent(tx, principal, ctx, { action: 'bank-account.created', subjectType: SUBJECT, subjectId: row.id, details: 'version 1' });
      return row;
    });
  }

  async function updateBankAccount(
    principal: Principal,
    legalEntityId: string,
    id: string,
    input: Schemas['BankAccountUpdate'],
    ctx: RequestContext,
  ): Promise<BankAccount> {
    const details = bankAccountDetailsOf(input);
    const stale = () => new AppError('stale-version', `The bank account changed since version ${input.expectedVersion}; reload it and retry`);
    return companies.change(
      principal,
      legalEntityId,
      async (tx, company) => {
        // Held until commit, so what the audit event says the change did is decided on the version it replaces.
        const current = await requireBankAccount(tx, company, id, { lock: true });
        if (current.version !== input.expectedVersion) throw stale();
        await requireGlAccount(tx, company, details);
        const outcome = await replaceBankAccount(tx, company, { id, ...details, archived: input.archived, expectedVersion: input.expectedVersion });
        if (outcome.kind === 'stale') throw stale();
        if (outcome.kind === 'number-taken') throw accountNumberTaken(details.accountNumber);
        const row = outcome.row;
        const archiving = row.archived === current.archived ? '' : row.archived ? ', archived' : ', restored from the archive';
        await recordCallerEvent(tx, principal, ctx, { action: 'bank-account.updated', subjectType: SUBJECT, subjectId: row.id, details: `version ${row.version}${archiving}` });
        return row;
      },
      async (tx, company) => {
        await requireBankAccount(tx, company, id);
      },
    );
  }

  return { listBankAccounts, getBankAccount, createBankAccount, updateBankAccount };
}
