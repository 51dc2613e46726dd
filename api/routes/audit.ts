import { Router } from 'express';
import type { createAuditTrailService } from '../services/audit-trail';
import { locals } from '../middleware/request-context';
import { optionalBoolean, optionalString, pageAndSize } from './query-params';

export function auditRoutes(deps: { audit: ReturnType<typeof createAuditTrailService> }): Router {
  const router = Router();

  router.get('/api/v1/audit-events', async (req, res) => {
    const s = (name: string) => optionalString(req, name);
    res.json(
      await deps.audit.list(locals(res).principal!, {
        subjectType: s('subjectType'),
        action: s('action'),
        actorMembershipId: s('actorMembershipId'),
        subjectId: s('subjectId'),
        correlationId: s('correlationId'),
        systemActor: optionalBoolean(req, 'systemActor'),
        from: s('from'),
        to: s('to'),
        dateFrom: s('dateFrom'),
        dateTo: s('dateTo'),
        timezone: s('timezone'),
        ...pageAndSize(req),
      }),
    );
  });

  router.get('/api/v1/audit-events/actors', async (req, res) => {
    res.json(await deps.audit.actors(locals(res).principal!, { q: optionalString(req, 'q') ?? '', ...pageAndSize(req) }));
  });

  router.get('/api/v1/audit-events/actions', (_req, res) => {
    res.json(deps.audit.actions());
  });

  router.get('/api/v1/audit-events/statistics', async (req, res) => {
    res.json(await deps.audit.statistics(locals(res).principal!, { date: optionalString(req, 'date'), timezone: optionalString(req, 'timezone') }));
  });

  return router;
}
