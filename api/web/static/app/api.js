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
