import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { locals } from '../middleware/request-context';

/**
 * The web pages people reach from the service's mails, and the small console on a workspace host: static
 * HTML and plain JavaScript modules that call the public API from the same origin. Like /docs they carry no
 * data and take no input (the scripts call the API, which checks everything), so they are served outside
 * the document's operations. Each page exists on one kind of host only; elsewhere the path is the usual 404.
 */

/** The pages' Content-Security-Policy, directive by directive. */
const PAGE_CSP = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self'",
  'connect-src': "'self'",
  'form-action': "'none'",
  'base-uri': "'none'",
  'frame-ancestors': "'none'",
};

/**
 * No inline script or style, nothing from another origin, no framing, no referrer (links carry tokens).
 * `relax` replaces single directives of the policy for a page that cannot do without (only /docs does).
 */
export function pageHeaders(relax: Partial<Record<keyof typeof PAGE_CSP, string>> = {}): Record<string, string> {
  return {
    'Content-Security-Policy': Object.entries({ ...PAGE_CSP, ...relax })
      .map(([directive, sources]) => `${directive} ${sources}`)
      .join('; '),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

export const PAGE_HEADERS = pageHeaders();

/** The pages' files (HTML, scripts, style sheet). */
export function staticDir(): string {
  // From the sources (api/web) and from the build (dist/api/web), the files stay in the sources.
  const candidates = [path.join(__dirname, 'static'), path.join(__dirname, '..', '..', '..', 'api', 'web', 'static')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'tenant.html')));
  if (!found) throw new Error('api/web/static not found');
  return found;
}

export function webRoutes(options: { publicUrl: string; baseDomain: string }): Router {
  const dir = staticDir();
  const origin = new URL(options.publicUrl);
  // Where a workspace lives, for the pages to show: the public URL's scheme and port on <slug>.<domain>.
  const workspaceOrigin = `${origin.protocol}//{slug}.${options.baseDomain}${origin.port ? `:${origin.port}` : ''}`;
  const page = (file: string) =>
    readFileSync(path.join(dir, file), 'utf8').replace('{{WORKSPACE_ORIGIN}}', workspaceOrigin.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`));
  const pages = {
    central: new Map([
      ['/register', page('register.html')],
      ['/reset-password', page('reset-password.html')],
    ]),
    tenant: page('tenant.html'),
  };
  const tenantPaths = new Set(['/login', '/console', '/invitations/accept']);

  const send = (res: Response, html: string) => {
    res.set({ ...PAGE_HEADERS, 'Cache-Control': 'no-store' }).type('html').send(html);
  };
  const router = Router({ caseSensitive: true, strict: true });
  router.get(['/register', '/reset-password', '/login', '/console', '/invitations/accept', '/'], (req: Request, res: Response, next: NextFunction) => {
    const host = locals(res).ctx.host;
    if (host.kind === 'central' && pages.central.has(req.path)) return send(res, pages.central.get(req.path)!);
    if (host.kind === 'tenant' && req.path === '/') return res.redirect(302, '/console');
    if (host.kind === 'tenant' && tenantPaths.has(req.path)) return send(res, pages.tenant);
    return next();
  });
  // The chart library of the overview (uPlot), from our own origin: the package's ES module and its style sheet.
  const uplotDir = path.dirname(require.resolve('uplot/package.json'));
  const vendor = new Map([
    ['/app/vendor/uplot.js', { file: path.join(uplotDir, 'dist', 'uPlot.esm.js'), type: 'text/javascript' }],
    ['/app/vendor/uplot.css', { file: path.join(uplotDir, 'dist', 'uPlot.min.css'), type: 'text/css' }],
  ]);
  router.get([...vendor.keys()], (req: Request, res: Response) => {
    const { file, type } = vendor.get(req.path)!;
    res.set({ ...PAGE_HEADERS, 'Cache-Control': 'no-cache' }).type(type).sendFile(file);
  });
  router.use(
    '/app',
    express.static(path.join(dir, 'app'), {
      index: false,
      redirect: false,
      setHeaders: (res) => res.set({ ...PAGE_HEADERS, 'Cache-Control': 'no-cache' }),
    }),
  );
  return router;
}
