import { Router } from 'express';
import type { createRegistrationService } from '../services/registration';
import type { createLoginService } from '../services/login';
import type { SessionService } from '../services/sessions';
import { locals } from '../middleware/request-context';

export function authRoutes(deps: {
  registration: ReturnType<typeof createRegistrationService>;
  login: ReturnType<typeof createLoginService>;
  sessions: SessionService;
}): Router {
  const router = Router();

  router.post('/api/v1/auth/magic-link/request', async (req, res) => {
    await deps.registration.requestMagicLink(req.body.email, locals(res).ctx);
    res.status(202).json({ message: 'If the address can receive mail, a registration link is on its way.' });
  });

  router.post('/api/v1/auth/register', async (req, res) => {
    res.status(201).json(await deps.registration.register(req.body, locals(res).ctx));
  });

  router.post('/api/v1/auth/login', async (req, res) => {
    const outcome = await deps.login.login(req.body, locals(res).ctx);
    res.status(outcome.status).json(outcome.body);
  });

  router.post('/api/v1/auth/refresh', async (req, res) => {
    res.status(200).json(await deps.sessions.refresh(req.body.refreshToken, locals(res).ctx));
  });

  router.post('/api/v1/auth/logout', async (req, res) => {
    await deps.sessions.logout(req.body.refreshToken, locals(res).ctx);
    res.status(204).end();
  });

  return router;
}
