import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../runtime/logger';
import type { HostContext, Principal, RequestContext } from '../http/context';
import type { OperationInfo } from '../../contracts/operations';
import type { ApiMetrics } from '../http/metrics';
import { AppError } from '../../core/shared/problems';

/** What a client may send as its own correlation id: printable, header-safe, bounded. */
const CLIENT_CORRELATION_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export interface Locals {
  ctx: RequestContext;
  log: Logger;
  operation?: OperationInfo;
  principal?: Principal;
}

export function locals(res: Response): Locals {
  return res.locals as Locals;
}

/**
 * The host decides the login workspace and nothing else: D and api.D are the central host, <slug>.D a
 * workspace, callbacks.D the callback host, as nginx routes them. An IP address is the central host too (a
 * probe or a client on this machine; a DNS-rebinding page cannot make a browser send one); any other name is
 * unknown and served nothing, so a page on another origin that resolves to this address reads nothing.
 */
export function parseHost(hostHeader: string | undefined, baseDomain: string): HostContext {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  if (host === baseDomain || host === `api.${baseDomain}`) return { kind: 'central' };
  if (host === `callbacks.${baseDomain}`) return { kind: 'callbacks' };
  if (host.endsWith(`.${baseDomain}`)) {
    const label = host.slice(0, -(baseDomain.length + 1));
    if (/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) return { kind: 'tenant', slug: label };
  }
  if (isIP(host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host) !== 0) return { kind: 'central' };
  return { kind: 'unknown' };
}

/**
 * Serves a request only on a host nginx would route it to: nothing on an unknown host, and on the callback
 * host only the provider's callback operations (`isCallbackPath`, from the document). Anything else is the 404
 * problem nginx answers there.
 */
export function hostGuard(isCallbackPath: (path: string) => boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    const { host } = locals(res).ctx;
    if (host.kind === 'unknown' || (host.kind === 'callbacks' && !isCallbackPath(req.path))) {
      throw new AppError('not-found', 'No service answers on this host');
    }
    next();
  };
}

/**
 * Correlation id (always the service's own: a client could otherwise thread its audit events into another
 * operation), the client's X-Correlation-Id kept beside it, request context, one access-log line per request.
 */
export function requestContext(logger: Logger, baseDomain: string, metrics?: Pick<ApiMetrics, 'observeRequest'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-correlation-id');
    const clientCorrelationId = incoming && CLIENT_CORRELATION_ID.test(incoming) ? incoming : null;
    const correlationId = randomUUID();
    const started = process.hrtime.bigint();
    const log = logger.child(clientCorrelationId ? { correlationId, clientCorrelationId } : { correlationId });
    const ctx: RequestContext = {
      correlationId,
      clientCorrelationId,
      ipAddress: req.ip ?? null,
      userAgent: req.get('user-agent')?.slice(0, 512) ?? null,
      host: parseHost(req.get('host'), baseDomain),
    };
    Object.assign(res.locals, { ctx, log } satisfies Locals);
    res.setHeader('X-Correlation-Id', correlationId);
    if (clientCorrelationId) res.setHeader('X-Client-Correlation-Id', clientCorrelationId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const { operation, principal } = locals(res);
      metrics?.observeRequest(operation?.operationId, req.method, res.statusCode, ms / 1000);
      log.info('request', {
        method: req.method,
        path: req.path,
        operationId: operation?.operationId,
        status: res.statusCode,
        durationMs: Math.round(ms * 10) / 10,
        tenantId: principal?.tenantId,
        membershipId: principal?.membershipId,
      });
    });
    next();
  };
}
