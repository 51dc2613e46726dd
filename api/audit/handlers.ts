import type { Sequelize } from 'sequelize';
import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import { createAuditTrail } from './audit-trail';

export type AuditOperation = 'listAuditEvents' | 'listAuditActors' | 'listAuditActions' | 'getAuditStatistics';

/** The workspace's immutable audit trail. */
export function auditHandlers(deps: { db: Sequelize }): HandlersOf<AuditOperation> {
  const trail = createAuditTrail(deps);
  return {
    listAuditEvents: memberOperation(async ({ principal, query }) => {
      const { page, size, ...filter } = query;
      return { status: 200, body: await trail.listAuditEvents(principal, { ...filter, ...pageQuery({ page, size }) }) };
    }),

    listAuditActors: memberOperation(async ({ principal, query }) => ({
      status: 200,
      body: await trail.listAuditActors(principal, { q: query.q ?? '', ...pageQuery(query) }),
    })),

    listAuditActions: memberOperation(() => ({ status: 200, body: trail.listAuditActions() })),

    getAuditStatistics: memberOperation(async ({ principal, query }) => ({
      status: 200,
      body: await trail.getAuditStatistics(principal, { date: query.date, timezone: query.timezone }),
    })),
  };
}
