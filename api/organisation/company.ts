import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { archiveCompany as archiveCompanyRow, completeOnboarding as completeOnboardingRow, firstCompanyOf, lockCompany } from '../../db/repositories/organisation/companies';
import { AppError } from '../../core/shared/problems';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { recordCallerEvent } from '../../services/audit/caller-events';

type CompanyWorkspace = Schemas['CompanyWorkspace'];

/** The workspace's company: completing onboarding, archiving. */
export function createCompany(deps: { db: Sequelize }) {
  const { db } = deps;

  /** The workspace's company, locked for the change: an archive waits for changes in flight (they hold it FOR SHARE). */
  async function locked<T>(principal: Principal, work: (tx: Tx, company: CompanyWorkspace) => Promise<T>): Promise<T> {
    return withTenant(db, principal.tenantId, async (tx) => {
      const first = await firstCompanyOf(tx, { tenantId: principal.tenantId });
      if (!first) throw new AppError('not-found', 'The workspace has no company');
      await lockCompany(tx, { tenantId: principal.tenantId, legalEntityId: first.id });
      const company = (await firstCompanyOf(tx, { tenantId: principal.tenantId }))!;
      return work(tx, company);
    });
  }

  function completeOnboarding(principal: Principal, body: Schemas['Company'], ctx: RequestContext): Promise<CompanyWorkspace> {
    return locked(principal, async (tx, company) => {
      if (company.archived) throw new AppError('company-archived', 'The company is archived');
      const scope = { tenantId: principal.tenantId, legalEntityId: company.id };
      await completeOnboardingRow(tx, scope, { name: body.name.trim(), taxId: body.taxId });
      await recordCallerEvent(tx, principal, ctx, {
        action: 'workspace.onboarding.completed',
        subjectType: 'COMPANY',
        subjectId: company.id,
        details: company.onboardingComplete ? 'company details changed' : 'onboarding completed',
      });
      return (await firstCompanyOf(tx, { tenantId: principal.tenantId }))!;
    });
  }

  /** Archiving is final and idempotent: a second archive answers the archived company and records nothing. */
  function archiveCompany(principal: Principal, ctx: RequestContext): Promise<CompanyWorkspace> {
    return locked(principal, async (tx, company) => {
      if (company.archived) return company;
      await archiveCompanyRow(tx, { tenantId: principal.tenantId, legalEntityId: company.id });
      await recordCallerEvent(tx, principal, ctx, { action: 'workspace.company.archived', subjectType: 'COMPANY', subjectId: company.id });
      return (await firstCompanyOf(tx, { tenantId: principal.tenantId }))!;
    });
  }

  return { completeOnboarding, archiveCompany };
}
