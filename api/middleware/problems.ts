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

function send(res: Response, type: ProblemType, detail: string, extensions: Record<string, unknown> = {}): void {
  const { ctx } = locals(res);
  res
    .status(PROBLEMS[type].status)
    .type('application/problem+json')
    .json({
      type: problemTypeUri(type),
      title: PROBLEMS[type].title,
      status: PROBLEMS[type].status,
      detail,
      instance: `urn:uuid:${ctx?.correlationId ?? randomUUID()}`,
      ...extensions,
    });
}

/** The one error handler: every failure becomes a problem document (or the empty 401/403 the contract allows). */
export function problemHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
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
    if (e.status === 415) return send(res, 'unsupported-media-type', e.message ?? 'Unsupported media type');
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
    stack: err instanceof Error ? err.stack : undefined,
  });
  send(res, 'internal', 'Quote the support reference when you contact support', { supportReference });
}
