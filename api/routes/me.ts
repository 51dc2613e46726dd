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

  return router;
}
