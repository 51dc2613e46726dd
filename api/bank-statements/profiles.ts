import { randomUUID } from 'node:crypto';
import { deleteProfile, findProfile, insertProfile, listProfiles, replaceProfile, type ProfileRow } from '../../db/repositories/bank-statements/profiles';
import { checkColumnProfile, type ColumnProfile } from '../../adapters/bank-statements';
import { StatementFormatError } from '../../core/bank-statements/statements';
import { AppError } from '../../core/shared/problems';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScopes } from '../organisation/company-scope';

type Profile = Schemas['BankStatementProfile'];

const SUBJECT = 'BANK_STATEMENT_PROFILE';

const toProfile = (row: ProfileRow): Profile => ({ id: row.id, name: row.name, profile: row.profile as Profile['profile'], version: row.version });

/** The profile as the parsers will read it, checked as a whole: 400 saying what is wrong. */
export function columnProfileOf(profile: Schemas['BankStatementColumnProfile']): ColumnProfile {
  const columnProfile = profile as ColumnProfile;
  try {
    checkColumnProfile(columnProfile);
  } catch (err) {
    if (!(err instanceof StatementFormatError)) throw err;
    throw new AppError('validation', err.message, { errors: [{ path: '/body/profile', message: err.message }] });
  }
  return columnProfile;
}

/** The company's column profiles: how each of its banks lays out a CSV or XLSX statement. */
export function createBankStatementProfiles(companies: CompanyScopes) {
  async function listBankStatementProfiles(principal: Principal, legalEntityId: string, query: PageQuery): Promise<Schemas['BankStatementProfilePage']> {
    const { rows, total } = await companies.read(principal, legalEntityId, (tx, scope) => listProfiles(tx, scope, { limit: query.size, offset: query.page * query.size }));
    return pageOf(rows.map(toProfile), query, total);
  }

  async function createBankStatementProfile(principal: Principal, legalEntityId: string, input: Schemas['BankStatementProfileCreate'], ctx: RequestContext): Promise<Profile> {
    const profile = columnProfileOf(input.profile);
    return companies.change(principal, legalEntityId, async (tx, scope) => {
      const row = await insertProfile(tx, scope, { id: randomUUID(), name: input.name.trim(), profile: profile as unknown as Record<string, unknown> });
      await recordCallerEvent(tx, principal, ctx, { action: 'bank-statement-profile.created', subjectType: SUBJECT, subjectId: row.id, details: `"${row.name}"` });
      return toProfile(row);
    });
  }

  const missing = () => new AppError('not-found', 'No column profile with this id in this company');

  async function updateBankStatementProfile(principal: Principal, legalEntityId: string, id: string, input: Schemas['BankStatementProfileUpdate'], ctx: RequestContext): Promise<Profile> {
    const profile = columnProfileOf(input.profile);
    return companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        if (!(await findProfile(tx, scope, id, { lock: true }))) throw missing();
        const row = await replaceProfile(tx, scope, { id, name: input.name.trim(), profile: profile as unknown as Record<string, unknown>, expectedVersion: input.expectedVersion });
        if (!row) throw new AppError('stale-version', `The profile changed since version ${input.expectedVersion}; reload it and retry`);
        await recordCallerEvent(tx, principal, ctx, { action: 'bank-statement-profile.updated', subjectType: SUBJECT, subjectId: id, details: `version ${row.version}: "${row.name}"` });
        return toProfile(row);
      },
      async (tx, scope) => {
        if (!(await findProfile(tx, scope, id))) throw missing();
      },
    );
  }

  async function deleteBankStatementProfile(principal: Principal, legalEntityId: string, id: string, ctx: RequestContext): Promise<void> {
    await companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const current = await findProfile(tx, scope, id, { lock: true });
        if (!current || !(await deleteProfile(tx, scope, id))) throw missing();
        await recordCallerEvent(tx, principal, ctx, { action: 'bank-statement-profile.deleted', subjectType: SUBJECT, subjectId: id, details: `"${current.name}"` });
      },
      async (tx, scope) => {
        if (!(await findProfile(tx, scope, id))) throw missing();
      },
    );
  }

  return { listBankStatementProfiles, createBankStatementProfile, updateBankStatementProfile, deleteBankStatementProfile };
}
