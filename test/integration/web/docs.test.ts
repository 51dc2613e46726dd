// The API docs page (Swagger UI at /docs): its host, its headers, the files it serves, and the page itself
// rendered by Debian's Chromium (driven by playwright-core, as in browser.test.ts) with the page's own policy.
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api } from '../../helpers/clients';

const SHOTS = path.join(__dirname, '..', '..', '.tmp', 'screenshots');
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";
/** The pages' policy with the one relaxation Swagger UI needs: its style sheet's icons are data: images. */
const DOCS_CSP = PAGE_CSP.replace("img-src 'self'", "img-src 'self' data:");

let stack: TestStack;
let server: Server;
let port: number;
let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  stack = await startTestStack({}, { worker: false });
  server = stack.app.listen(0, '127.0.0.1') as unknown as Server;
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as { port: number }).port;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await stack.stop();
});

const expectPageHeaders = (headers: Record<string, string>) => {
  expect(headers['content-security-policy']).toBe(DOCS_CSP);
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
};

describe('GET /docs (Swagger UI)', () => {
  test('when asked on the central host, then the page comes with the pages\' headers and no inline script or style', async () => {
    const page = await api(stack).get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expectPageHeaders(page.headers);
    expect(page.text).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
    expect(page.text).toContain('<script type="module" src="/docs/init.js"></script>');
    expect(page.text).toContain('data-document="/api/v1/openapi.json"');
    expect(page.text).not.toMatch(/<script>|<style>|\sstyle=|\son[a-z]+=/i);
  });

  test('when Swagger UI\'s files are asked for, then exactly the four the page loads are served, with the same headers', async () => {
    for (const [file, type] of [
      ['/docs/swagger-ui.css', /^text\/css/],
      ['/docs/swagger-ui-bundle.js', /javascript/],
      ['/docs/init.js', /javascript/],
      ['/docs/favicon-32x32.png', /^image\/png/],
    ] as const) {
      const res = await api(stack).get(file).expect(200);
      expect(res.headers['content-type']).toMatch(type);
      expectPageHeaders(res.headers);
    }
  });

  test('when anything else under /docs is asked for, then it is the usual 404 problem', async () => {
    for (const file of [
      '/docs/index.html',
      '/docs/swagger-initializer.js',
      '/docs/swagger-ui.js',
      '/docs/swagger-ui-bundle.js.map',
      '/docs/oauth2-redirect.html',
      '/docs/package.json',
      '/docs/favicon-16x16.png',
      '/docs/',
      '/docs/../package.json',
      '/DOCS',
    ]) {
      const res = await api(stack).get(file);
      expect({ file, status: res.status }).toEqual({ file, status: 404 });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  test('when asked on a workspace host or the callback host, then the page and its files are the usual 404 problem', async () => {
    for (const host of [`some-firm.${stack.config.baseDomain}`, `callbacks.${stack.config.baseDomain}`]) {
      for (const file of ['/docs', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js', '/docs/favicon-32x32.png']) {
        const res = await api(stack).get(file).set('Host', host);
        expect({ host, file, status: res.status }).toEqual({ host, file, status: 404 });
        expect(res.body.type).toBe('/problems/not-found');
        expect(res.headers['content-security-policy']).toBeUndefined();
      }
    }
  });

  test('when opened in Chromium, then it lists the operations with no script error and no refused resource', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('response', (res) => res.status() >= 400 && problems.push(`${res.status()} ${res.url()}`));
    // A refused resource also reaches the page as an event, whether or not the console shows it.
    await page.addInitScript("document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective} ${e.blockedURI}`));");
    const response = await page.goto(`http://localhost:${port}/docs`);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary');
    // Every operation of the document, as Swagger UI labels it: method and path.
    const operations = Object.entries(stack.doc.paths as Record<string, Record<string, unknown>>).flatMap(([route, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'put', 'post', 'delete', 'patch'].includes(key))
        .map((method) => `${method.toUpperCase()} ${route}`),
    );
    // From 150 tags and operations on, Swagger UI renders only the ones near the viewport (a virtual list),
    // so the page is read a screen at a time from the top down to its end.
    const seen = new Set<string>();
    const rendered = () =>
      page.$$eval('.opblock-summary', (summaries) =>
        summaries.map((s) => `${s.querySelector('.opblock-summary-method')?.textContent} ${s.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
      );
    const nextFrame = () => page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    for (let screens = 0; screens < 1000; screens++) {
      for (const label of await rendered()) seen.add(label);
      const before = await page.evaluate('window.scrollY');
      await page.evaluate('window.scrollBy(0, window.innerHeight / 2)');
      await nextFrame();
      // The end: the page no longer scrolls (once the list has measured what it just rendered).
      if ((await page.evaluate('window.scrollY')) === before) break;
    }
    expect([...seen].sort()).toEqual([...operations].sort());
    await page.evaluate('window.scrollTo(0, 0)');
    await nextFrame();
    await expect(page.locator('.opblock-summary-path[data-path="/api/v1/auth/login"]').count()).resolves.toBe(1);
    // Open one operation: its parameters and responses render too.
    await page.locator('.opblock-summary').first().click();
    await page.waitForSelector('.opblock-body .responses-wrapper');
    await page.screenshot({ path: path.join(SHOTS, '20-docs.png') });
    expect(problems).toEqual([]);
    await context.close();
  });
});
