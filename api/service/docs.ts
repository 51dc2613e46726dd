import path from 'node:path';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { locals } from '../middleware/request-context';
import { pageHeaders, staticDir } from '../web/routes';

/**
 * Human-readable docs: Swagger UI from the swagger-ui-dist package, pointed at our document. A static page,
 * not an operation: it carries no data and takes no input, so it is served outside the document's
 * operations, on the central host only, with the web pages' headers. Only the files the page loads are
 * served; anything else under /docs is the usual 404.
 */
export function docsRoutes(documentPath: string): Router {
  const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const files = new Map([
    ['/docs/swagger-ui.css', path.join(swaggerDir, 'swagger-ui.css')],
    ['/docs/swagger-ui-bundle.js', path.join(swaggerDir, 'swagger-ui-bundle.js')],
    ['/docs/favicon-32x32.png', path.join(swaggerDir, 'favicon-32x32.png')],
    ['/docs/init.js', path.join(staticDir(), 'docs', 'init.js')],
  ]);
  // Swagger UI's style sheet draws its icons (arrows, locks, the copy button) as data: SVG images.
  const headers = { ...pageHeaders({ 'img-src': "'self' data:" }), 'Cache-Control': 'no-cache' };
  const attribute = documentPath.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accounting API</title><link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui" data-document="${attribute}"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script type="module" src="/docs/init.js"></script></body></html>`;

  const router = Router({ caseSensitive: true, strict: true });
  router.get(['/docs', ...files.keys()], (req: Request, res: Response, next: NextFunction) => {
    if (locals(res).ctx.host.kind !== 'central') return next();
    if (req.path === '/docs') return res.set(headers).type('html').send(page);
    return res.sendFile(files.get(req.path)!, { headers });
  });
  return router;
}
