import { Router } from 'express';
import type { createMeService } from '../services/me';
import { locals } from '../middleware/request-context';

export function meRoutes(deps: { me: ReturnType<typeof createMeService> }): Router {
  const router = Router();

  router.get('/api/v1/me', async (_req, res) => {
    res.json(await deps.me.currentUser(locals(res).principal!));
  });

  router.get('/api/v1/me/access', async (_req, res) => {
    res.json(await deps.me.access(locals(res).principal!));
  });

  router.get('/api/v1/me/sessions', async (req, res) => {
    const page = Number(req.query.page ?? 0);
    const size = Number(req.query.size ?? 50);
    res.json(await deps.me.sessions(locals(res).principal!, page, size));
  });

  router.delete('/api/v1/me/sessions/:sessionId', async (req, res) => {
    await deps.me.revokeSession(locals(res).principal!, req.params.sessionId, locals(res).ctx);
    res.status(204).end();
  });

  return router;
}
