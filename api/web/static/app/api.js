// @ts-check
// Calls to the public API from the same origin, and the problem documents it answers with.

/** @typedef {import('../../../../contracts/openapi').operations} Operations */

/**
 * The problem document of a refused request. Partial: a proxy or a network failure answers with none, and
 * `call` stands in an empty one.
 * @typedef {Partial<import('../../../../contracts/openapi').components['schemas']['Problem']>} Problem
 */

/**
 * A 2xx answer as `call` resolves it, before a caller says which operation answered it (`Reply`).
 * @typedef {{ status: number, data: unknown }} Answer
 */

/**
 * The JSON body of one response of the OpenAPI document; null for a response without content (204), which
 * `call` reads as null.
 * @template Response
 * @typedef {Response extends { content: { 'application/json': infer Body } } ? Body : null} JsonBody
 */

/**
 * What the operation `Op` answers on success, each 2xx status with its body, so a test of `status` picks the
 * body. The caller names the operation of the path it calls (`Reply<'login'>` for POST /auth/login) in a
 * JSDoc cast of the answer.
 * @template {keyof Operations} Op
 * @typedef {{ [Status in keyof Operations[Op]['responses']]: Status extends 200 | 201 | 202 | 204
 *   ? { status: Status, data: JsonBody<Operations[Op]['responses'][Status]> }
 *   : never }[keyof Operations[Op]['responses']]} Reply
 */

/**
 * The JSON body the operation `Op` takes.
 * @template {keyof Operations} Op
 * @typedef {Operations[Op] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never} RequestBody
 */

export class ProblemError extends Error {
  /**
   * @param {number} status
   * @param {Problem} problem
   * @param {string | null} [retryAfter] the Retry-After header, in seconds
   */
  constructor(status, problem, retryAfter) {
    super(problem.title || `Request failed (${status})`);
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/**
 * A body sent as it is, not as JSON: a file's bytes with the content type they are sent as (a bank statement).
 * @typedef {{ bytes: Blob, type: string }} RawBody
 */

/**
 * One request; resolves with { status, data } for 2xx, rejects with ProblemError otherwise. `body` goes as
 * JSON, `raw` as its bytes.
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, raw?: RawBody, token?: string }} [options]
 * @returns {Promise<Answer>}
 */
export async function call(method, path, { body, raw, token } = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json, application/problem+json' };
  if (raw) headers['content-type'] = raw.type;
  else if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const sent = raw ? raw.bytes : body === undefined ? undefined : JSON.stringify(body);
  const res = await fetch(path, { method, headers, body: sent, credentials: 'omit', cache: 'no-store' });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) throw new ProblemError(res.status, data && typeof data === 'object' ? data : {}, res.headers.get('retry-after'));
  return { status: res.status, data };
}

/**
 * A file the API answers (an export) in the `accept` type: resolves with { blob, filename }, the name the
 * response's Content-Disposition gives (null without one); rejects with ProblemError like `call`.
 * @param {string} path
 * @param {{ accept: string, token?: string }} options
 * @returns {Promise<{ blob: Blob, filename: string | null }>}
 */
export async function fetchFile(path, { accept, token }) {
  /** @type {Record<string, string>} */
  const headers = { accept: `${accept}, application/problem+json` };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, { headers, credentials: 'omit', cache: 'no-store' });
  if (!res.ok) {
    let data = null;
    try {
      data = await res.json();
    } catch {
      data = null;
    }
    throw new ProblemError(res.status, data && typeof data === 'object' ? data : {}, res.headers.get('retry-after'));
  }
  return { blob: await res.blob(), filename: attachmentName(res.headers.get('content-disposition')) };
}

/**
 * The filename of a Content-Disposition header: filename* (RFC 6266, UTF-8) before filename; null without either.
 * @param {string | null} header
 */
function attachmentName(header) {
  if (!header) return null;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // a malformed encoding falls back to the plain name
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
  return plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2].trim()) : null;
}

/**
 * What to tell a person about a failed request: the problem's title and detail, and the wait on 429.
 * @param {unknown} err what the request rejected with
 */
export function describe(err) {
  if (!(err instanceof ProblemError)) return 'The service could not be reached. Check the connection and try again.';
  let text = err.problem.title || `The request failed (${err.status})`;
  if (err.problem.detail && err.problem.detail !== err.problem.title) text += `: ${err.problem.detail}`;
  if (err.status === 429 && err.retryAfter) text += ` (try again in ${err.retryAfter} seconds)`;
  if (Array.isArray(err.problem.errors) && err.problem.errors.length) {
    text += ` — ${err.problem.errors.map((e) => [e.path, e.message].filter(Boolean).join(' ')).join('; ')}`;
  }
  return text;
}
