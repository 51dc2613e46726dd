import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { simpleEntry } from '../../helpers/ledger';

// A body is read only after the request matched an operation and authenticated (bearer token or the
// callback's shared token): without credentials, broken, oversized, mistyped or never-ending bodies all
// answer 401, and a request that matches no operation answers 404/405 without its body being read.

let stack: TestStack;
let alice: Registered;
let server: http.Server;
beforeAll(async () => {
  stack = await startTestStack();
  alice = await registerWorkspace(stack);
  server = stack.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await stack.stop();
});

const entries = () => `/api/v1/ledger/${alice.me.company.id}/entries`;
const EVENTS = '/api/v1/callbacks/email-events';
const callbackHost = () => `callbacks.${stack.config.baseDomain}`;
const BROKEN = '{"requestId": ';
const OVERSIZED = JSON.stringify({ pad: 'x'.repeat(300 * 1024) });
const OVERSIZED_BATCH = JSON.stringify([{ pad: 'x'.repeat(1100 * 1024) }]);

/**
 * Sends the headers and the first bytes of a body, and never the rest: resolves with the answer the server
 * gives without the whole body, or rejects when it waits for it.
 */
function withPendingBody(path: string, headers: Record<string, string>, firstBytes: string, waitMs = 5000): Promise<{ status: number; text: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'Content-Type': 'application/json', ...headers } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${waitMs} ms: the server is waiting for the body`));
    }, waitMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.flushHeaders();
    req.write(firstBytes);
  });
}

describe('postJournalEntry: the body is read only after bearer authentication', () => {
  test.each<[string, string | undefined]>([
    ['no token', undefined],
    ['a token that is not ours', 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl'],
  ])('when there is %s, then broken JSON, an oversized body and a wrong media type are all 401 with an empty body', async (_name, token) => {
    const send = (type: string, body: string) => {
      const req = api(stack).post(entries()).set('Content-Type', type);
      if (token) req.set(...bearer(token));
      return req.send(body);
    };
    for (const res of [await send('application/json', BROKEN), await send('application/json', OVERSIZED), await send('text/plain', 'description=x')]) {
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  test('when there is no token and the body never finishes, then 401 at once', async () => {
    const res = await withPendingBody(entries(), { 'Content-Length': '1000' }, '{"requestId":');
    expect(res).toEqual({ status: 401, text: '' });
  });

  test('when there is no token and the declared length is far over the limit, then 401, not 413', async () => {
    const res = await withPendingBody(entries(), { 'Content-Length': String(50 * 1024 * 1024) }, '{');
    expect(res).toEqual({ status: 401, text: '' });
  });

  test('when the token is valid, then broken JSON is 400, an oversized body 413 and a wrong media type 415, as problems', async () => {
    const send = (type: string, body: string) => api(stack).post(entries()).set(...bearer(alice.accessToken)).set('Content-Type', type).send(body);
    expect((await send('application/json', BROKEN)).body).toMatchObject({ status: 400, type: '/problems/validation' });
    expect((await send('application/json', OVERSIZED)).body).toMatchObject({ status: 413, type: '/problems/payload-too-large' });
    expect((await send('text/plain', 'description=x')).body).toMatchObject({ status: 415, type: '/problems/unsupported-media-type' });
  });

  test('when the token is valid and the body never finishes, then the server waits for it: the answers above without one were not read', async () => {
    const authorization = { Authorization: `Bearer ${alice.accessToken}` };
    await expect(withPendingBody(entries(), { ...authorization, 'Content-Length': '1000' }, '{"requestId":', 1000)).rejects.toThrow(/waiting for the body/);
  });

  test('when the token is valid and the body is good, then the entry is posted (201)', async () => {
    await api(stack).post(entries()).set(...bearer(alice.accessToken)).send(simpleEntry('2025-04-01', '5.00')).expect(201);
  });
});

describe('receiveEmailEvents: the body is read only after the callback guard', () => {
  const send = (xAuth: string, type: string, body: string) =>
    api(stack).post(EVENTS).set('Host', callbackHost()).set('X-Auth', xAuth).set('Content-Type', type).send(body);

  test('when X-Auth is wrong, then broken JSON, an oversized batch and a wrong media type are all 401 with an empty body', async () => {
    for (const res of [await send('wrong', 'application/json', BROKEN), await send('wrong', 'application/json', OVERSIZED_BATCH), await send('wrong', 'text/plain', 'x')]) {
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
      expect(res.headers['www-authenticate']).toBe('X-Auth');
    }
  });

  test('when X-Auth is wrong and the body never finishes or is declared far over the limit, then 401 at once', async () => {
    const headers = { Host: callbackHost(), 'X-Auth': 'wrong' };
    expect(await withPendingBody(EVENTS, { ...headers, 'Content-Length': '1000' }, '[{')).toEqual({ status: 401, text: '' });
    expect(await withPendingBody(EVENTS, { ...headers, 'Content-Length': String(50 * 1024 * 1024) }, '[')).toEqual({ status: 401, text: '' });
  });

  test('when X-Auth is right, then broken JSON is 400, a batch over 1 MB 413 and a wrong media type 415; a batch over 256 kB is read', async () => {
    const token = stack.config.mail.callbackToken;
    expect((await send(token, 'application/json', BROKEN)).body).toMatchObject({ status: 400, type: '/problems/validation' });
    expect((await send(token, 'application/json', OVERSIZED_BATCH)).body).toMatchObject({ status: 413, type: '/problems/payload-too-large' });
    expect((await send(token, 'text/plain', 'x')).body).toMatchObject({ status: 415, type: '/problems/unsupported-media-type' });
    // Past the clients' limit, within the provider's: parsed, then refused by validation (not an event batch).
    const big = await send(token, 'application/json', JSON.stringify([{ pad: 'x'.repeat(300 * 1024) }]));
    expect(big.body).toMatchObject({ status: 400, type: '/problems/validation' });
  });
});

describe('requests that match no operation: the body is never read', () => {
  test('when the path is unknown, then 404 whatever the body, also one declared far over the limit', async () => {
    const res = await api(stack).post('/api/v1/no-such-thing').set('Content-Type', 'application/json').send(BROKEN);
    expect(res.body).toMatchObject({ status: 404, type: '/problems/not-found' });
    const declared = await withPendingBody('/api/v1/no-such-thing', { 'Content-Length': String(50 * 1024 * 1024) }, '{');
    expect(declared.status).toBe(404);
  });

  test('when only the method differs, then 405 whatever the body', async () => {
    const res = await api(stack).put('/api/v1/auth/login').set('Content-Type', 'application/json').send(BROKEN);
    expect(res.body).toMatchObject({ status: 405, type: '/problems/method-not-allowed' });
  });
});

describe('login: a public operation parses its body as before', () => {
  test('when the body is broken JSON, too large or of another type, then 400, 413 and 415 problems', async () => {
    const send = (type: string, body: string) => api(stack).post('/api/v1/auth/login').set('Content-Type', type).send(body);
    expect((await send('application/json', BROKEN)).body).toMatchObject({ status: 400, type: '/problems/validation' });
    expect((await send('application/json', OVERSIZED)).body).toMatchObject({ status: 413, type: '/problems/payload-too-large' });
    expect((await send('text/plain', 'email=a')).body).toMatchObject({ status: 415, type: '/problems/unsupported-media-type' });
  });
});
