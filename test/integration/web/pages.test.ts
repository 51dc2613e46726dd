import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, registerWorkspace, type Registered } from '../../helpers/clients';

let stack: TestStack;
let workspace: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  workspace = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const tenantHost = () => `${workspace.me.company.slug}.${stack.config.baseDomain}`;

describe('web pages: served on their host only, with a strict Content-Security-Policy', () => {
  test('GET /register on the central host is the registration page, with the workspace address template', async () => {
    const page = await api(stack).get('/register?token=x').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<script type="module" src="/app/register.js"></script>');
    expect(page.text).not.toMatch(/<script>|<style>|\son[a-z]+=/i);
    const origin = new URL(stack.config.publicUrl);
    expect(page.text).toContain(`content="${origin.protocol}//{slug}.${stack.config.baseDomain}${origin.port ? `:${origin.port}` : ''}"`);
  });

  test('GET /reset-password on the central host is the password reset page, with the same headers', async () => {
    const page = await api(stack).get('/reset-password?token=x').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<script type="module" src="/app/reset-password.js"></script>');
    expect(page.text).not.toMatch(/<script>|<style>|\son[a-z]+=/i);
  });

  test('the workspace pages answer on a workspace host, and / there opens the console', async () => {
    for (const path of ['/login', '/console', '/invitations/accept']) {
      const page = await api(stack).get(path).set('Host', tenantHost()).expect(200);
      expect(page.text).toContain('/app/tenant.js');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    }
    const root = await api(stack).get('/').set('Host', tenantHost()).expect(302);
    expect(root.headers.location).toBe('/console');
  });

  test('a page on the wrong host is the usual 404 problem: registration on a workspace host, the console on the central host', async () => {
    const wrong = await api(stack).get('/register').set('Host', tenantHost()).expect(404);
    expect(wrong.headers['content-type']).toMatch(/application\/problem\+json/);
    await api(stack).get('/reset-password').set('Host', tenantHost()).expect(404);
    await api(stack).get('/console').expect(404);
    await api(stack).get('/login').expect(404);
  });

  test('the scripts and the style sheet are served with the same headers; unknown assets are 404', async () => {
    for (const asset of ['/app/tenant.js', '/app/register.js', '/app/reset-password.js', '/app/api.js', '/app/dom.js', '/app/money.js', '/app/console/currency.js', '/app/console/turnover-sheet.js', '/app/console/account-statement.js', '/app/console/statements.js', '/app/console/download.js', '/app/console/reconciliation-statement.js', '/app/console/bank-accounts.js', '/app/console/bank-common.js', '/app/console/bank-import.js', '/app/console/bank-lines.js', '/app/console/bank-match.js', '/app/console/bank-reconciliation.js', '/app/console/bank-rules.js']) {
      const res = await api(stack).get(asset).expect(200);
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await api(stack).get('/app/style.css').expect(200)).headers['content-type']).toMatch(/text\/css/);
    await api(stack).get('/app/missing.js').expect(404);
    await api(stack).get('/app/../routes.ts').expect(404);
  });

  test('GET /api/v1 is an index with links to the docs and the document, not a 404', async () => {
    const index = await api(stack).get('/api/v1').expect(200);
    expect(index.body).toEqual({ name: expect.any(String), version: expect.any(String), documentation: '/docs', openapi: '/api/v1/openapi.json' });
  });
});
