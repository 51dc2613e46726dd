import { startTestStack, type TestStack } from '../../helpers/stack';
import { api } from '../../helpers/clients';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('getHealth, getReadiness and getOpenApiDocument: health, readiness and documentation', () => {
  test('GET /healthz answers 200 UP', async () => {
    expect((await api(stack).get('/healthz').expect(200)).body).toEqual({ status: 'UP' });
  });

  test('GET /readyz answers 200 when PostgreSQL and Temporal are reachable', async () => {
    const res = await api(stack).get('/readyz').expect(200);
    expect(res.body).toEqual({ status: 'READY', checks: { postgres: 'UP', temporal: 'UP' } });
  });

  test('GET /api/v1/openapi.json serves the document every route is validated against', async () => {
    const res = await api(stack).get('/api/v1/openapi.json').expect(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.paths['/api/v1/auth/login'].post.operationId).toBe('login');
    expect(res.body.paths['/api/v1/me'].get['x-permission']).toBe('getCurrentUser');
  });

  test('GET /docs renders the document as human-readable docs', async () => {
    const page = await api(stack).get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('swagger-ui');
    await api(stack).get('/docs/swagger-ui-bundle.js').expect(200);
    // The page names the document; its script (no inline script) hands that address to Swagger UI.
    expect(page.text).toContain('data-document="/api/v1/openapi.json"');
    const init = await api(stack).get('/docs/init.js').expect(200);
    expect(init.text).toContain('url: root.dataset.document');
  });

  test('every response carries the service\'s own correlation id; a client\'s is echoed beside it, never adopted', async () => {
    const id = '0b9c1f7e-3d57-4c8b-8f3e-0d1c2b3a4f5e';
    const res = await api(stack).get('/healthz').set('X-Correlation-Id', id);
    expect(res.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-correlation-id']).not.toBe(id);
    expect(res.headers['x-client-correlation-id']).toBe(id);
    const ticket = await api(stack).get('/healthz').set('X-Correlation-Id', 'shop-42:order/7');
    expect(ticket.headers['x-client-correlation-id']).toBe('shop-42:order/7');
    const unsafe = await api(stack).get('/healthz').set('X-Correlation-Id', 'has spaces <and> "quotes"');
    expect(unsafe.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(unsafe.headers['x-client-correlation-id']).toBeUndefined();
  });
});

describe('errors are problem documents', () => {
  test('an unknown path answers 404 problem', async () => {
    const res = await api(stack).get('/api/v1/nothing-here').expect(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/not-found', status: 404, title: expect.any(String) });
    expect(res.body.instance).toMatch(/^urn:uuid:/);
  });

  test('a wrong method answers 405 problem', async () => {
    const res = await api(stack).put('/api/v1/auth/login').send({}).expect(405);
    expect(res.body.type).toBe('/problems/method-not-allowed');
  });

  test('a body that is not JSON answers 415 problem', async () => {
    const res = await api(stack).post('/api/v1/auth/login').set('Content-Type', 'text/plain').send('email=a');
    expect(res.status).toBe(415);
    expect(res.body.type).toBe('/problems/unsupported-media-type');
  });

  test('a body over the size limit answers 413 problem', async () => {
    const res = await api(stack).post('/api/v1/auth/login').send({ email: 'a@b.co', password: 'x'.repeat(300_000) });
    expect(res.status).toBe(413);
    expect(res.body.type).toBe('/problems/payload-too-large');
  });
});
