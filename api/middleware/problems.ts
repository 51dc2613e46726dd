import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { AppError, PROBLEMS, problemTypeUri, TenantHostMismatchError, UnauthenticatedError, type ProblemType } from '../../core/shared/problems';
import { locals } from './request-context';
import { isDatabaseUnavailable } from '../../db/unavailable';

interface ValidatorError {
  status?: number;
  message?: string;
  errors?: Array<{ path?: string; message?: string }>;
  type?: string;
}

/** gRPC UNAVAILABLE (14) or DEADLINE_EXCEEDED (4) from the Temporal client, at any depth of the cause chain. */
function isTemporalUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 14 || code === 4) return true;
  }
  return false;
}

/**
 * Writes the problem document as text, not through res.json: in development and tests the response validator
 * wraps res.json, and a problem whose status the operation does not declare would fail there and fall through
 * to Express's own HTML error page (with the stack). A problem is built from the catalogue, so its shape is
 * known; an undeclared status is logged instead (see problemHandler).
 */
function send(res: Response, type: ProblemType, detail: string, extensions: Record<string, unknown> = {}): void {
  const { ctx } = locals(res);
  const body = {
    type: problemTypeUri(type),
    title: PROBLEMS[type].title,
    status: PROBLEMS[type].status,
    detail,
    instance: `urn:uuid:${ctx?.correlationId ?? randomUUID()}`,
    ...extensions,
  };
  res.status(body.status).type('application/problem+json').send(JSON.stringify(body));
}

/** The statuses the matched operation declares (its `responses`), or null when no operation was matched. */
function declaredStatuses(req: Request): string[] | null {
  const responses = (req as { openapi?: { schema?: { responses?: Record<string, unknown> } } }).openapi?.schema?.responses;
  return responses ? Object.keys(responses) : null;
}

/**
 * The one error handler: every failure becomes a problem document (or the empty 401/403 the contract allows),
 * in every environment. Should answering fail in turn, the last resort still writes a 500 problem document,
 * so Express's HTML error page is never what a client gets.
 */
export function problemHandler(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  try {
    answer(err, req, res);
  } catch (failure) {
    lastResort(res, failure);
    return;
  }
  try {
    // The document is the contract: a status it does not declare for the operation is our drift to fix.
    const declared = declaredStatuses(req);
    const status = String(res.statusCode);
    if (declared && !declared.includes(status) && !declared.includes(`${status[0]}XX`) && !declared.includes('default')) {
      locals(res).log?.warn('answer status not declared by the operation', { status: res.statusCode, operationId: locals(res).operation?.operationId });
    }
  } catch {
    // a log line is not worth the answer, which has gone out
  }
}

/** A 500 problem written by hand, with nothing that could throw again but the socket. */
function lastResort(res: Response, failure: unknown): void {
  try {
    locals(res).log?.error('the error handler failed', { error: failure instanceof Error ? failure.message : String(failure) });
  } catch {
    // the log is what failed: the answer below is all that is left to do
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({
    type: problemTypeUri('internal'),
    title: PROBLEMS.internal.title,
    status: 500,
    detail: 'Quote the support reference when you contact support',
    instance: `urn:uuid:${randomUUID()}`,
    supportReference: randomUUID(),
  });
  res.statusCode = 500;
  res.removeHeader('Retry-After');
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function answer(err: unknown, _req: Request, res: Response): void {
  const { log } = locals(res);
  if (err instanceof UnauthenticatedError) {
    log?.info('unauthenticated', { reason: err.reason });
    res.status(401).setHeader('WWW-Authenticate', err.challenge).end();
    return;
  }
  if (err instanceof TenantHostMismatchError) {
    res.status(403).end();
    return;
  }
  if (err instanceof AppError) {
    for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
    send(res, err.type, err.detail, err.extensions);
    return;
  }
  const e = err as ValidatorError & { type?: string; expose?: boolean };
  // body-parser errors
  if (e?.type === 'entity.parse.failed') return send(res, 'validation', 'The body is not valid JSON');
  if (e?.type === 'entity.too.large') return send(res, 'payload-too-large', 'The body exceeds the size limit');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return send(res, 'unsupported-media-type', 'Send UTF-8 JSON');
  // express-openapi-validator errors (request side; response-side errors are 500s: our bug)
  if (typeof e?.status === 'number' && Array.isArray(e.errors)) {
    const errors = e.errors.map((x) => ({ path: x.path ?? '', message: x.message ?? '' }));
    if (e.status === 400) return send(res, 'validation', errors.map((x) => `${x.path} ${x.message}`).join('; '), { errors });
    if (e.status === 404) return send(res, 'not-found', e.message ?? 'Not found');
    if (e.status === 405) return send(res, 'method-not-allowed', e.message ?? 'Method not allowed');
    if (e.status === 406) return send(res, 'not-acceptable', e.message ?? 'Not acceptable');
    if (e.status === 413) return send(res, 'payload-too-large', e.message ?? 'The body exceeds the size limit');
    if (e.status === 415) return send(res, 'unsupported-media-type', e.message ?? 'Unsupported media type');
    // 500: the answer the handler built does not match the document (response validation, outside production),
    // which is our bug: the 500 problem below, its log line naming the mismatch.
  }
  if (isDatabaseUnavailable(err) || isTemporalUnavailable(err)) {
    log?.warn('dependency unavailable', { error: err instanceof Error ? err.message : String(err) });
    // A restart of either takes seconds; the request changed nothing and may be sent again.
    res.setHeader('Retry-After', '2');
    return send(res, 'dependency-unavailable', 'A service this operation depends on is unavailable; try again shortly');
  }
  const supportReference = randomUUID();
  log?.error('unhandled error', {
    supportReference,
    error: err instanceof Error ? err.message : String(err),
    ...(Array.isArray(e?.errors) ? { errors: e.errors } : {}),
    stack: err instanceof Error ? err.stack : undefined,
  });
  send(res, 'internal', 'Quote the support reference when you contact support', { supportReference });
}
