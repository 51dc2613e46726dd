import type { Sequelize } from 'sequelize';
import type { Tx } from '../../db/connection';
import { findCompany } from '../../db/repositories/companies';
import { AppError } from '../../core/problems';
import type { Principal } from '../context';

/** A company of another tenant, or none at all, is 404: the caller learns nothing about it. */
export async function requireCompany(db: Sequelize, tx: Tx, principal: Principal, legalEntityId: string): Promise<void> {
  const company = await findCompany(db, tx, { tenantId: principal.tenantId, legalEntityId });
  if (!company) throw new AppError('not-found', 'No company with this id in your workspace');
}

/**
 * For mutations: the company exists and holds its row until commit (see findCompany). `ensureTarget` runs
 * between the existence and the archive check, so an unknown account is 404 even in an archived company.
 */
export async function requireChangeableCompany(
  db: Sequelize,
  tx: Tx,
  principal: Principal,
  legalEntityId: string,
  ensureTarget: () => Promise<void> = async () => undefined,
): Promise<void> {
  const company = await findCompany(db, tx, { tenantId: principal.tenantId, legalEntityId }, { forChange: true });
  if (!company) throw new AppError('not-found', 'No company with this id in your workspace');
  await ensureTarget();
  if (company.archived) throw new AppError('company-archived', 'The company is archived; its accounting configuration is read-only');
}
