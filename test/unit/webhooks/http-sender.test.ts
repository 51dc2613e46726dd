import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWebhookSender, type WebhookSenderOptions } from '../../../adapters/webhooks/http-sender';
import { EXCERPT_CHARS } from '../../../core/webhooks/webhooks';
import { startDnsStub } from '../../helpers/dns-stub';

// The sender against real receivers on this machine (node:http and node:https servers in the test).

interface Receiver {
  url: string;
  requests: Array<{ method: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

async function listen(server: Server, scheme: 'http' | 'https', host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}/hook`;
}

async function receiver(answer: (res: ServerResponse, body: string) => void, host?: string): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', headers: req.headers, body });
      answer(res, body);
    });
  });
  const url = await listen(server, 'http', host);
  return {
    url,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const LOCAL: WebhookSenderOptions = { allowHttp: true, allowLoopback: true, timeoutMs: 2000 };
const request = (url: string) => ({ url, headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' }, body: '{"type":"webhook.test"}' });

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
async function started(answer: (res: ServerResponse, body: string) => void, host?: string): Promise<Receiver> {
  const r = await receiver(answer, host);
  receivers.push(r);
  return r;
}

describe('the webhook sender', () => {
  test('when the receiver answers 2xx, then the attempt is delivered with its status, duration and an excerpt, the body and headers as given', async () => {
    const r = await started((res) => res.writeHead(202, { 'content-type': 'text/plain' }).end('thanks'));
    const answer = await createWebhookSender(LOCAL).send(request(r.url));
    expect(answer).toEqual({ statusCode: 202, durationMs: expect.any(Number), errorClass: null, excerpt: 'thanks' });
    expect(r.requests).toEqual([{ method: 'POST', headers: expect.objectContaining({ 'webhook-id': 'msg_1', 'content-type': 'application/json' }), body: '{"type":"webhook.test"}' }]);
  });

  test('when the URL names localhost, then the name is resolved at the attempt and reaches the receiver on loopback', async () => {
    const r = await started((res) => res.writeHead(204).end());
    const answer = await createWebhookSender(LOCAL).send(request(r.url.replace('127.0.0.1', 'localhost')));
    expect(answer).toMatchObject({ statusCode: 204, errorClass: null });
    expect(r.requests).toHaveLength(1);
  });

  test('when the receiver listens on ::1, then an IPv6 literal URL reaches it', async () => {
    const r = await started((res) => res.writeHead(200).end('ok'), '::1');
    expect(await createWebhookSender(LOCAL).send(request(r.url))).toMatchObject({ statusCode: 200, errorClass: null });
  });

  test('when a name resolves at the attempt, then the connection goes to the address that was checked, without a second look-up', async () => {
    // loopback.test exists only on the stub: a second look-up through the system's resolver would fail.
    const dns = await startDnsStub();
    try {
      const r = await started((res) => res.writeHead(200).end());
      const sender = createWebhookSender({ ...LOCAL, dnsServers: [dns.server] });
      const before = dns.queries;
      expect(await sender.send(request(r.url.replace('127.0.0.1', 'loopback.test')))).toMatchObject({ statusCode: 200, errorClass: null });
      expect(r.requests).toHaveLength(1);
      expect(r.requests[0]!.headers.host).toBe(`loopback.test:${new URL(r.url).port}`);
      // One look-up per attempt: A and AAAA, once.
      expect(dns.queries - before).toBe(2);
      expect(await createWebhookSender({ ...LOCAL, allowLoopback: false, dnsServers: [dns.server] }).send(request(r.url.replace('127.0.0.1', 'loopback.test'))))
        .toMatchObject({ errorClass: 'ADDRESS_REFUSED' });
      expect(r.requests).toHaveLength(1);
    } finally {
      await dns.close();
    }
  });

  test('when loopback is not allowed, then a receiver on 127.0.0.1, ::ffff:127.0.0.1 or localhost is refused and never reached', async () => {
    const r = await started((res) => res.writeHead(200).end());
    const sender = createWebhookSender({ ...LOCAL, allowLoopback: false });
    const port = new URL(r.url).port;
    for (const url of [r.url, `http://[::ffff:127.0.0.1]:${port}/hook`, `http://localhost:${port}/hook`]) {
      expect(await sender.send(request(url))).toEqual({ statusCode: null, durationMs: expect.any(Number), errorClass: 'ADDRESS_REFUSED', excerpt: null });
    }
    expect(r.requests).toHaveLength(0);
  });

  test.each(['[::127.0.0.1]', '[::7f00:1]', '[::ffff:127.0.0.1]', '[64:ff9b::127.0.0.1]', '[fc00::1]', '[fe80::1]', '[2001:db8::1]'])(
    'when the URL names %s, then the attempt is refused before any connection, even with loopback allowed (IPv6 only from 2000::/3)',
    async (host) => {
      const r = await started((res) => res.writeHead(200).end());
      const port = new URL(r.url).port;
      for (const allowLoopback of [false, true]) {
        if (host === '[::ffff:127.0.0.1]' && allowLoopback) continue; // the IPv4 it maps is loopback, judged as such (below)
        const sender = createWebhookSender({ ...LOCAL, allowLoopback });
        expect(await sender.send(request(`http://${host}:${port}/hook`))).toEqual({ statusCode: null, durationMs: expect.any(Number), errorClass: 'ADDRESS_REFUSED', excerpt: null });
      }
      expect(r.requests).toHaveLength(0);
    },
  );

  test('when loopback is allowed, then [::ffff:127.0.0.1] is judged as 127.0.0.1 and reaches the receiver', async () => {
    const r = await started((res) => res.writeHead(204).end());
    const port = new URL(r.url).port;
    expect(await createWebhookSender(LOCAL).send(request(`http://[::ffff:127.0.0.1]:${port}/hook`))).toMatchObject({ statusCode: 204, errorClass: null });
    expect(r.requests).toHaveLength(1);
  });

  test('when https is required, then a plain http URL is refused before any connection', async () => {
    const r = await started((res) => res.writeHead(200).end());
    expect(await createWebhookSender({ ...LOCAL, allowHttp: false }).send(request(r.url))).toMatchObject({ statusCode: null, errorClass: 'HTTPS_REQUIRED' });
    expect(r.requests).toHaveLength(0);
  });

  test('when the receiver redirects, then the redirect is not followed and the attempt fails as REDIRECT', async () => {
    const target = await started((res) => res.writeHead(200).end());
    const r = await started((res) => res.writeHead(307, { location: target.url }).end());
    expect(await createWebhookSender(LOCAL).send(request(r.url))).toMatchObject({ statusCode: 307, errorClass: 'REDIRECT' });
    expect(target.requests).toHaveLength(0);
  });

  test('when the receiver answers 5xx with a long body, then the attempt fails as HTTP_STATUS with a bounded excerpt', async () => {
    const r = await started((res) => res.writeHead(503).end('x'.repeat(100_000)));
    const answer = await createWebhookSender(LOCAL).send(request(r.url));
    expect(answer).toMatchObject({ statusCode: 503, errorClass: 'HTTP_STATUS' });
    expect(answer.excerpt).toBe('x'.repeat(EXCERPT_CHARS));
  });

  test('when the receiver streams an endless body, then only its first kilobytes are read and the attempt ends well before the deadline', async () => {
    const r = await started((res) => {
      res.writeHead(200);
      res.write('y'.repeat(8192));
      // …and never ends the response.
    });
    const began = Date.now();
    const answer = await createWebhookSender({ ...LOCAL, timeoutMs: 5000 }).send(request(r.url));
    expect(answer).toMatchObject({ statusCode: 200, errorClass: null, excerpt: 'y'.repeat(EXCERPT_CHARS) });
    expect(Date.now() - began).toBeLessThan(2500);
  });

  test('when the answer holds control characters (U+0000 too), then the excerpt keeps none of them', async () => {
    const r = await started((res) => res.writeHead(400).end('bad\u0000input\u0007here\nline two'));
    expect(await createWebhookSender(LOCAL).send(request(r.url))).toMatchObject({ statusCode: 400, excerpt: 'bad\ufffdinput\ufffdhere\nline two' });
  });

  test('when the receiver never answers, then the attempt fails as TIMEOUT at the deadline', async () => {
    const r = await started(() => undefined);
    const began = Date.now();
    expect(await createWebhookSender({ ...LOCAL, timeoutMs: 500 }).send(request(r.url))).toMatchObject({ statusCode: null, errorClass: 'TIMEOUT' });
    expect(Date.now() - began).toBeGreaterThanOrEqual(450);
    expect(Date.now() - began).toBeLessThan(1500);
  });

  test('when nothing listens, then the attempt fails as CONNECTION_REFUSED', async () => {
    const r = await started(() => undefined);
    const url = r.url;
    await r.close();
    receivers.length = 0;
    expect(await createWebhookSender(LOCAL).send(request(url))).toMatchObject({ statusCode: null, errorClass: 'CONNECTION_REFUSED' });
  });

  test('when the URL is not one, then the attempt fails as INVALID_URL', async () => {
    expect(await createWebhookSender(LOCAL).send(request('not a url'))).toMatchObject({ errorClass: 'INVALID_URL' });
    expect(await createWebhookSender(LOCAL).send(request('ftp://127.0.0.1/hook'))).toMatchObject({ errorClass: 'INVALID_URL' });
  });

  test('when the receiver presents a certificate nobody vouches for, then the attempt fails as TLS: certificates are verified', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'webhook-tls-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost',
        '-days', '1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
      let reached = 0;
      const server = createTlsServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => {
        reached += 1;
        res.writeHead(200).end();
      });
      const url = (await listen(server, 'https')).replace('127.0.0.1', 'localhost');
      try {
        expect(await createWebhookSender({ ...LOCAL, allowHttp: false }).send(request(url))).toMatchObject({ statusCode: null, errorClass: 'TLS' });
        expect(reached).toBe(0);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
