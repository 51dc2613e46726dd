// The session of a workspace page: access and refresh token in this page's memory only (never in storage,
// gone on reload), the caller's identity and permissions, and API calls that refresh once on a 401.
import { ProblemError, call, fetchFile } from './api.js';

let session = null; // { accessToken, refreshToken, me, permissions }
let refreshing = null;
const listeners = [];

/** `fn(message)` runs when a session starts (message undefined) or ends (with what to tell the person). */
export function onSessionChange(fn) {
  listeners.push(fn);
}

const changed = (ended, message) => listeners.forEach((fn) => fn({ ended, message }));

export const hasSession = () => session !== null;
export const me = () => session.me;
export const can = (permission) => Boolean(session?.permissions.has(permission));
export const company = () => session.me.company.id;

/** An API call with the session's access token; one refresh (one-time token) when the token has expired. */
export async function api(method, path, body) {
  if (!session) throw new ProblemError(401, { title: 'You are not logged in' });
  try {
    return await call(method, path, { body, token: session.accessToken });
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status !== 401 || !session) throw err;
    await refresh();
    return call(method, path, { body, token: session.accessToken });
  }
}

/** A file the API answers in the `accept` type ({ blob, filename }), with the same one refresh as `api`. */
export async function download(path, accept) {
  if (!session) throw new ProblemError(401, { title: 'You are not logged in' });
  try {
    return await fetchFile(path, { accept, token: session.accessToken });
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status !== 401 || !session) throw err;
    await refresh();
    return fetchFile(path, { accept, token: session.accessToken });
  }
}

async function refresh() {
  refreshing ??= call('POST', '/api/v1/auth/refresh', { body: { refreshToken: session.refreshToken } })
    .then((res) => {
      session.accessToken = res.data.accessToken;
      session.refreshToken = res.data.refreshToken;
    })
    .catch((err) => {
      // A refresh token is good once; after any failure the only way on is to log in again.
      endSession('Your session has ended; log in again.');
      throw err;
    })
    .finally(() => (refreshing = null));
  return refreshing;
}

export async function startSession(tokens) {
  session = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, me: null, permissions: new Set() };
  const [who, access] = await Promise.all([api('GET', '/api/v1/me'), api('GET', '/api/v1/me/access')]);
  session.me = who.data;
  session.permissions = new Set(access.data.permissions);
  changed(false);
}

export function endSession(message) {
  session = null;
  changed(true, message);
}

/** Revokes the session on the server (whatever the answer), then ends it here. */
export async function logout() {
  const ending = session;
  if (!ending) return;
  await call('POST', '/api/v1/auth/logout', { token: ending.accessToken, body: { refreshToken: ending.refreshToken } }).catch(() => undefined);
  endSession('You have logged out.');
}
