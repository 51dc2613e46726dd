// Calls to the public API from the same origin, and the problem documents it answers with.

export class ProblemError extends Error {
  constructor(status, problem, retryAfter) {
    super(problem.title || `Request failed (${status})`);
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/** One request; resolves with { status, data } for 2xx, rejects with ProblemError otherwise. */
export async function call(method, path, { body, token } = {}) {
  const headers = { accept: 'application/json, application/problem+json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
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
 */
export async function fetchFile(path, { accept, token }) {
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

/** The filename of a Content-Disposition header: filename* (RFC 6266, UTF-8) before filename; null without either. */
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

/** What to tell a person about a failed request: the problem's title and detail, and the wait on 429. */
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
