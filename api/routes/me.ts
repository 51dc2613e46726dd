import { Router } from 'express';
import type { createMeService } from '../services/me';
import type { createSecurityService } from '../services/security';
import { locals } from '../middleware/request-context';

export function meRoutes(deps: { me: ReturnType<typeof createMeService>; security: ReturnType<typeof createSecurityService> }): Router {
  const { security } = deps;
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

  router.put('/api/v1/me/password', async (req, res) => {
    await security.changePassword(locals(res).principal!, req.body, locals(res).ctx);
    res.status(204).end();
  });

  router.get('/api/v1/me/security', async (_req, res) => {
    res.json(await security.status(locals(res).principal!));
  });

  router.post('/api/v1/me/security/email-factor/challenge', async (req, res) => {
    res.status(202).json(await security.challengeEmailFactor(locals(res).principal!, req.body, locals(res).ctx));
  });

  router.post('/api/v1/me/security/email-factor/confirm', async (req, res) => {
    res.json(await security.confirmEmailFactor(locals(res).principal!, req.body, locals(res).ctx));
  });

  router.post('/api/v1/me/security/totp/setup', async (req, res) => {
    res.status(201).json(await security.setupTotp(locals(res).principal!, req.body));
  });

  router.post('/api/v1/me/security/totp/confirm', async (req, res) => {
    res.json(await security.confirmTotp(locals(res).principal!, req.body, locals(res).ctx));
  });

  router.post('/api/v1/me/security/totp/disable', async (req, res) => {
    res.json(await security.disableTotp(locals(res).principal!, req.body, locals(res).ctx));
  });

  router.post('/api/v1/me/security/recovery-codes', async (req, res) => {
    res.json(await security.regenerateRecoveryCodes(locals(res).principal!, req.body, locals(res).ctx));
  });

  return router;
}
