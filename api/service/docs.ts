import path from 'node:path';
import express, { Router } from 'express';

/**
 * Human-readable docs: Swagger UI from the swagger-ui-dist package, pointed at our document. Static pages,
 * not operations: they carry no data and take no input, so they are the one thing served outside the
 * document's operations.
 */
export function docsRoutes(documentPath: string): Router {
  const router = Router({ caseSensitive: true, strict: true });
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
    res.type('application/javascript').send(`window.ui = SwaggerUIBundle({ url: ${JSON.stringify(documentPath)}, dom_id: '#swagger-ui' });`);
  });
  router.use('/docs', express.static(swaggerDir, { index: false }));
  return router;
}
