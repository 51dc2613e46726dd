import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../core/logger';
import type { HostContext, Principal, RequestContext } from '../http/context';
import type { OperationInfo } from '../../contracts/operations';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Locals {
  ctx: RequestContext;
  log: Logger;
  operation?: OperationInfo;
  principal?: Principal;
}

export function locals(res: Response): Locals {
  return res.locals as Locals;
}

/** The host decides the login workspace and nothing else: <slug>.D is a workspace, callbacks.D the callback host. */
export function parseHost(hostHeader: string | undefined, baseDomain: string): HostContext {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  if (host === `callbacks.${baseDomain}`) return { kind: 'callbacks' };
  if (host.endsWith(`.${baseDomain}`)) {
    const label = host.slice(0, -(baseDomain.length + 1));
    if (label !== 'api' && /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) return { kind: 'tenant', slug: label };
  }
  return { kind: 'central' };
}

/** Correlation id (from X-Correlation-Id when it is a UUID), request context, one access-log line per request. */
export function requestContext(logger: Logger, baseDomain: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-correlation-id');
    const correlationId = incoming && UUID.test(incoming) ? incoming.toLowerCase() : randomUUID();
    const started = process.hrtime.bigint();
    const log = logger.child({ correlationId });
    const ctx: RequestContext = {
      correlationId,
      ipAddress: req.ip ?? null,
      userAgent: req.get('user-agent')?.slice(0, 512) ?? null,
      host: parseHost(req.get('host'), baseDomain),
    };
    Object.assign(res.locals, { ctx, log } satisfies Locals);
    res.setHeader('X-Correlation-Id', correlationId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const { operation, principal } = locals(res);
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
