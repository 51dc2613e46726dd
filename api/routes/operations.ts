import path from 'node:path';
import express, { Router } from 'express';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { MailOutboxMessage } from '../../db/models';
import type { Mailer } from '../../core/mail';
import { AppError } from '../../core/problems';
import { locals } from '../middleware/request-context';
import type { OpenApiDocument } from '../openapi';

export function operationsRoutes(deps: { db: Sequelize; temporal: Client; mailer: Mailer; doc: OpenApiDocument }): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'UP' });
  });

  router.get('/readyz', async (_req, res) => {
    const within = <T>(p: Promise<T>) =>
      Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
    const [postgres, temporal] = await Promise.all([
      within(deps.db.query('SELECT 1')).then(() => 'UP' as const, () => 'DOWN' as const),
      // The deadline ends the RPC itself (and its retries), not only our wait for it.
      deps.temporal.withDeadline(Date.now() + 2000, () => deps.temporal.workflowService.getSystemInfo({})).then(() => 'UP' as const, () => 'DOWN' as const),
    ]);
    const ready = postgres === 'UP' && temporal === 'UP';
    res.status(ready ? 200 : 503).json({ status: ready ? 'READY' : 'NOT_READY', checks: { postgres, temporal } });
  });

  router.get('/api/v1/openapi.json', (_req, res) => {
    res.json(deps.doc);
  });

  // Human-readable docs: Swagger UI from the swagger-ui-dist package, pointed at our document.
  const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.get(['/docs', '/docs/index.html'], (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Accounting API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send("window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui' });");
  });
  router.use('/docs', express.static(swaggerDir, { index: false }));

  // Development outbox reader: exists only while the outbox adapter is active, on the central host.
  router.get('/dev/mail', async (req, res) => {
    if (deps.mailer.kind !== 'outbox' || locals(res).ctx.host.kind !== 'central') {
      throw new AppError('not-found', 'No resource at GET /dev/mail');
    }
    const to = String(req.query.to).trim().toLowerCase();
    const messages = await MailOutboxMessage.findAll({ where: { toAddress: to }, order: [['id', 'DESC']], limit: 50 });
    res.json(messages.map((m) => ({ to: m.toAddress, subject: m.subject, text: m.text, sentAt: m.sentAt.toISOString() })));
  });

  return router;
}
