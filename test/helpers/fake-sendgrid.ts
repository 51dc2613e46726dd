import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

// A local stand-in for SendGrid's v3 mail API: POST /v3/mail/send answers 202 with an X-Message-Id, or
// whatever status the test queued next (4xx with SendGrid's error body, 5xx).

export interface FakeSendGrid {
  url: string;
  /** Requests received, in order: their Authorization header and JSON body. */
  requests: Array<{ authorization: string | undefined; path: string; body: any }>;
  /** The next answers, consumed one per request; empty: 202. */
  answers: Array<{ status: number; errors?: Array<{ message: string; field?: string | null }> }>;
  /** The message ids answered with 202. */
  accepted: string[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeSendGrid(): Promise<FakeSendGrid> {
  const fake = { requests: [], answers: [], accepted: [] } as unknown as FakeSendGrid;
  const server: Server = createServer(async (req, res) => {
    const raw = await bodyOf(req);
    fake.requests.push({ authorization: req.headers.authorization, path: req.url ?? '', body: raw ? JSON.parse(raw) : null });
    if (req.method !== 'POST' || req.url !== '/v3/mail/send') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'not found' }] }));
      return;
    }
    const answer = fake.answers.shift();
    if (!answer || answer.status === 202) {
      const id = randomBytes(16).toString('base64url');
      fake.accepted.push(id);
      res.writeHead(202, { 'x-message-id': id }).end();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: answer.errors ?? [{ message: 'failure', field: null }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}
