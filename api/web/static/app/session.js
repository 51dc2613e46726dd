// @ts-check
// The session of a workspace page: access and refresh token in this page's memory only (never in storage,
// gone on reload), the caller's identity and permissions, and API calls that refresh once on a 401.
import { ProblemError, call, fetchFile } from './api.js';

/**
 * @template {keyof Operations} Op
 * @typedef {import('./api.js').Reply<Op>} Reply
 */
/**
 * @template {keyof Operations} Op
 * @typedef {import('./api.js').RequestBody<Op>} RequestBody
 */

/** @typedef {import('../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {import('../../../../contracts/openapi').operations} Operations */

/**
 * @typedef {object} Session
 * @property {string} accessToken
 * @property {string} refreshToken
 * @property {Schemas['CurrentUser'] | null} me null until GET /me has answered
 * @property {Set<string>} permissions operation ids (GET /me/access)
 */

/** @typedef {{ ended: boolean, message?: string }} SessionChange */

/** @type {Session | null} */
let session = null;
/** @type {Promise<void> | null} */
let refreshing = null;
/** @type {((change: SessionChange) => void)[]} */
const listeners = [];

/**
 * `fn(message)` runs when a session starts (message undefined) or ends (with what to tell the person).
 * @param {(change: SessionChange) => void} fn
 */
export function onSessionChange(fn) {
  listeners.push(fn);
}

/**
 * @param {boolean} ended
 * @param {string} [message]
 */
const changed = (ended, message) => listeners.forEach((fn) => fn({ ended, message }));

export const hasSession = () => session !== null;
// The caller and their company are asked for only while a session is on: the console is drawn after
// startSession has read GET /me, and a session's end leaves it.
export const me = () => /** @type {Schemas['CurrentUser']} */ (/** @type {Session} */ (session).me);
/** @param {keyof Operations} permission an operation id, as GET /me/access lists them */
export const can = (permission) => Boolean(session?.permissions.has(permission));
export const company = () => me().company.id;

/**
 * An API call with the session's access token; one refresh (one-time token) when the token has expired.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<import('./api.js').Answer>}
 */
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

/**
 * A POST of a file's bytes as they are (`raw`: the bytes and their content type), with the same one refresh as `api`.
 * @param {string} path
 * @param {import('./api.js').RawBody} raw
 * @returns {Promise<import('./api.js').Answer>}
 */
export async function upload(path, raw) {
  if (!session) throw new ProblemError(401, { title: 'You are not logged in' });
  try {
    return await call('POST', path, { raw, token: session.accessToken });
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status !== 401 || !session) throw err;
    await refresh();
    return call('POST', path, { raw, token: session.accessToken });
  }
}

/**
 * A file the API answers in the `accept` type ({ blob, filename }), with the same one refresh as `api`.
 * @param {string} path
 * @param {string} accept
 */
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
  // The session the refresh is for: its new tokens go to it, never to a session started while it ran.
  const refreshed = /** @type {Session} */ (session);
  refreshing ??= call('POST', '/api/v1/auth/refresh', { body: /** @satisfies {RequestBody<'refreshSession'>} */ ({ refreshToken: refreshed.refreshToken }) })
    .then((answer) => {
      const { data } = /** @type {Reply<'refreshSession'>} */ (answer);
      refreshed.accessToken = data.accessToken;
      refreshed.refreshToken = data.refreshToken;
    })
    .catch((err) => {
      // A refresh token is good once; after any failure the only way on is to log in again.
      endSession('Your session has ended; log in again.');
      throw err;
    })
    .finally(() => (refreshing = null));
  return refreshing;
}

/** @param {Schemas['TokenResponse']} tokens */
export async function startSession(tokens) {
  session = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, me: null, permissions: new Set() };
  const [who, access] = /** @type {[Reply<'getCurrentUser'>, Reply<'getMyAccess'>]} */ (await Promise.all([api('GET', '/api/v1/me'), api('GET', '/api/v1/me/access')]));
  session.me = who.data;
  session.permissions = new Set(access.data.permissions);
  changed(false);
}

/** @param {string} message what to tell the person */
export function endSession(message) {
  session = null;
  changed(true, message);
}

/** Revokes the session on the server (whatever the answer), then ends it here. */
export async function logout() {
  const ending = session;
  if (!ending) return;
  await call('POST', '/api/v1/auth/logout', { token: ending.accessToken, body: /** @satisfies {RequestBody<'logout'>} */ ({ refreshToken: ending.refreshToken }) }).catch(() => undefined);
  endSession('You have logged out.');
}
