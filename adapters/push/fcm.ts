import jwt from 'jsonwebtoken';
import { networkFailureReason } from '../network-errors';
import { PushRejected, PushUnavailable, type PushNotification, type PushResult, type PushSender } from '../../core/notifications/push';

// Firebase Cloud Messaging HTTP v1. The access token comes from the service account by the OAuth 2.0
// JWT-bearer grant (RFC 7523) against the key file's own `token_uri`, signed with jsonwebtoken; it is
// cached until a minute before it expires and renewed once when FCM answers 401.

export interface FcmServiceAccount {
  project_id: string;
  private_key_id?: string;
  private_key: string;
  client_email: string;
  token_uri: string;
}

export interface FcmOptions {
  serviceAccount: FcmServiceAccount;
  /** https://fcm.googleapis.com, or a local fake in tests. */
  endpoint: string;
  timeoutMs: number;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

interface FcmError {
  error?: { code?: number; status?: string; message?: string; details?: Array<{ '@type'?: string; errorCode?: string }> };
}

async function post(url: string, init: { headers: Record<string, string>; body: string }, timeoutMs: number, what: string): Promise<Response> {
  try {
    return await fetch(url, { method: 'POST', ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new PushUnavailable(`${what}: ${networkFailureReason(err, timeoutMs)}`);
  }
}

export function createFcmPushSender(options: FcmOptions): PushSender {
  const account = options.serviceAccount;
  let cached: { token: string; expiresAt: number } | null = null;

  async function accessToken(): Promise<string> {
    if (cached && cached.expiresAt > Date.now() + 60_000) return cached.token;
    const now = Math.floor(Date.now() / 1000);
    const assertion = jwt.sign({ iss: account.client_email, scope: SCOPE, aud: account.token_uri, iat: now, exp: now + 3600 }, account.private_key, {
      algorithm: 'RS256',
      ...(account.private_key_id ? { keyid: account.private_key_id } : {}),
    });
    const res = await post(
      account.token_uri,
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      },
      options.timeoutMs,
      'FCM token exchange',
    );
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string };
    if (!res.ok || !body.access_token) {
      const reason = `FCM token exchange answered HTTP ${res.status}${body.error ? ` (${body.error})` : ''}`;
      // A refused service account will be refused again; an outage may pass.
      throw res.status >= 500 || res.status === 429 ? new PushUnavailable(reason) : new PushRejected(reason);
    }
    cached = { token: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
    return cached.token;
  }

  async function sendOnce(n: PushNotification, token: string): Promise<Response> {
    const message = {
      token: n.token,
      notification: { title: n.title, body: n.body },
      data: { messageId: n.messageId, ...(n.clickPath ? { clickPath: n.clickPath } : {}) },
    };
    return post(
      `${options.endpoint.replace(/\/$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`,
      { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) },
      options.timeoutMs,
      'FCM send',
    );
  }

  return {
    kind: 'fcm',
    async send(n: PushNotification): Promise<PushResult> {
      let res = await sendOnce(n, await accessToken());
      if (res.status === 401) {
        cached = null;
        res = await sendOnce(n, await accessToken());
      }
      const body = (await res.json().catch(() => ({}))) as FcmError & { name?: string };
      if (res.ok && body.name) return { outcome: 'SENT', providerMessageId: body.name };
      const errorCode = body.error?.details?.find((d) => d.errorCode)?.errorCode ?? body.error?.status ?? 'UNKNOWN';
      const reason = `FCM answered HTTP ${res.status} ${errorCode}`;
      if (errorCode === 'UNREGISTERED' || res.status === 404) return { outcome: 'UNREGISTERED' };
      if (res.status === 429 || res.status >= 500 || errorCode === 'UNAVAILABLE' || errorCode === 'INTERNAL' || errorCode === 'QUOTA_EXCEEDED') {
        throw new PushUnavailable(reason);
      }
      throw new PushRejected(reason);
    },
  };
}
