import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';

// A local stand-in for Google's OAuth token endpoint and FCM HTTP v1: it checks the service account's
// signed assertion and the bearer token as the real ones do, and answers per device token:
// `unregistered-…` 404 UNREGISTERED, `unavailable-…` 503 UNAVAILABLE (`flaky-…` only on its first try),
// `invalid-…` 400 INVALID_ARGUMENT, anything else 200 with a message name.

export interface FakeFcm {
  endpoint: string;
  serviceAccountFile: string;
  serviceAccount: { project_id: string; private_key_id: string; private_key: string; client_email: string; token_uri: string };
  /** The messages FCM accepted, in order. */
  accepted: Array<{ token: string; title: string; body: string; data: Record<string, string> }>;
  tokenExchanges: number;
  sendAttempts: number;
  /** Makes the next send answer 401 (an access token FCM no longer accepts). */
  revokeAccessToken(): void;
  failTokenExchange(status: number): void;
  close(): Promise<void>;
}

export async function startFakeFcm(): Promise<FakeFcm> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Set<string>();
  const flakySeen = new Set<string>();
  let revoked = false;
  let tokenStatus = 200;
  const fake = { accepted: [], tokenExchanges: 0, sendAttempts: 0 } as unknown as FakeFcm;

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/token') {
        fake.tokenExchanges += 1;
        if (tokenStatus !== 200) return reply(tokenStatus, { error: 'invalid_grant' });
        const form = new URLSearchParams(raw);
        try {
          const claims = jwt.verify(form.get('assertion') ?? '', publicKey, { algorithms: ['RS256'], audience: fake.serviceAccount.token_uri }) as jwt.JwtPayload;
          if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || claims.iss !== fake.serviceAccount.client_email) throw new Error('bad grant');
          if (claims.scope !== 'https://www.googleapis.com/auth/firebase.messaging') throw new Error('bad scope');
        } catch {
          return reply(400, { error: 'invalid_grant' });
        }
        const accessToken = `ya29.fake-${fake.tokenExchanges}`;
        issued.add(accessToken);
        return reply(200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
      }
      if (req.url === `/v1/projects/${fake.serviceAccount.project_id}/messages:send`) {
        fake.sendAttempts += 1;
        const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        if (revoked || !issued.has(bearer)) {
          revoked = false;
          issued.delete(bearer);
          return reply(401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } });
        }
        const { message } = JSON.parse(raw) as { message: { token: string; notification: { title: string; body: string }; data: Record<string, string> } };
        const fcmError = (code: number, status: string, errorCode: string) =>
          reply(code, { error: { code, status, message: errorCode, details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] } });
        if (message.token.startsWith('unregistered-')) return fcmError(404, 'NOT_FOUND', 'UNREGISTERED');
        if (message.token.startsWith('unavailable-')) return fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE');
        if (message.token.startsWith('flaky-') && !flakySeen.has(message.token)) {
          flakySeen.add(message.token);
          return fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE');
        }
        if (message.token.startsWith('invalid-')) return fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT');
        fake.accepted.push({ token: message.token, title: message.notification.title, body: message.notification.body, data: message.data });
        return reply(200, { name: `projects/${fake.serviceAccount.project_id}/messages/0:${fake.accepted.length}` });
      }
      reply(404, { error: { code: 404, status: 'NOT_FOUND' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.endpoint = `http://127.0.0.1:${port}`;
  fake.serviceAccount = {
    project_id: 'demo-accounting',
    private_key_id: 'key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'push@demo-accounting.iam.gserviceaccount.com',
    token_uri: `${fake.endpoint}/token`,
  };
  fake.serviceAccountFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'fake-fcm-')), 'service-account.json');
  writeFileSync(fake.serviceAccountFile, JSON.stringify({ type: 'service_account', ...fake.serviceAccount }));
  fake.revokeAccessToken = () => (revoked = true);
  fake.failTokenExchange = (status) => (tokenStatus = status);
  fake.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
