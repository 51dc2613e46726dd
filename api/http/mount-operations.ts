import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { OpenApiDocument, OperationIndex, OperationInfo } from '../../contracts/operations';
import { AppError, UnauthenticatedError } from '../../core/shared/problems';
import { locals } from '../middleware/request-context';
import { rawBodyOf } from '../middleware/raw-body';
import { refuseNulCharacters } from '../middleware/text-input';
import type { ExportSlots } from './export-limits';
import { answerTypes, negotiate } from './negotiation';
import type { OperationHandler, OperationInput, StreamReply } from './operation-handler';

// Routes come from the document, one per operation, each served by the handler of its operation id.
// Matching is exact (letter case, trailing slash), the same in Express, in authentication and in the
// validator, and deny-by-default: a request that matches no operation is 404 (405 when only the method
// differs); a bearer operation reaches its handler only with a principal.
// Each route's chain: the operation → authentication (bearer token or callback guard) → the body parser →
// no U+0000 in any text → validation → content negotiation (where the document offers several answer types) →
// the handler. A body is read only for a request that matched an operation and proved who it is, so an
// anonymous caller cannot make the server read or parse one. A request for an export (an answer type other than
// JSON) takes one of its workspace's export slots before its handler runs, held until the answer has ended.

export interface MountOptions {
  /** The document, for the operations' answer types (content negotiation); without it none negotiates. */
  doc?: OpenApiDocument;
  index: OperationIndex;
  handlers: Record<string, OperationHandler<any>>;
  /** Runs before validation for bearer operations: establishes the principal or refuses. */
  authenticate: (operation: OperationInfo) => RequestHandler;
  /** Runs before validation for provider callbacks: the callback host and the shared token, or refuse. */
  authenticateCallback: RequestHandler;
  /** Reads the operation's body; runs after authentication, so nothing reads a body before it. */
  parseBody: (operation: OperationInfo) => RequestHandler;
  /** The OpenAPI validator's middleware chain (request checks, response checks outside production). */
  validator: RequestHandler[];
  /** Bounds the exports running at once, per workspace and per process; unbounded without it. */
  exportSlots?: ExportSlots;
}

/** Refuses to start when the document and the handlers disagree in any way. */
function checkHandlers(index: OperationIndex, handlers: Record<string, OperationHandler<any>>): void {
  const problems: string[] = [];
  const documented = new Set<string>(index.operations.map((op) => op.operationId));
  for (const op of index.operations) {
    const handler = handlers[op.operationId];
    if (!handler) problems.push(`${op.operationId} (${op.method} ${op.path}) has no handler`);
    else {
      const needed = op.requiresBearer ? 'member' : op.requiresCallbackToken ? 'callback' : 'public';
      if (handler.access !== needed) problems.push(`${op.operationId} needs a ${needed} handler but its handler is ${handler.access}`);
    }
  }
  for (const id of Object.keys(handlers)) if (!documented.has(id)) problems.push(`handler ${id} has no operation in the document`);
  if (problems.length > 0) throw new Error(`The OpenAPI document and the handlers disagree:\n- ${problems.join('\n- ')}`);
}

/**
 * Sends a streamed answer (an export). Its headers go out with its first byte; a failure before that is still
 * a problem document, a failure after it aborts the connection, so the client sees a broken download rather
 * than a short file.
 */
async function sendStream(req: Request, res: Response, reply: StreamReply): Promise<void> {
  res.status(reply.status);
  res.setHeader('Content-Type', reply.contentType.startsWith('text/') ? `${reply.contentType}; charset=utf-8` : reply.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${reply.filename}"`);
  // HEAD has the headers alone: nothing is read for a body that is not sent.
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  try {
    await reply.stream(res);
  } catch (err) {
    if (!res.headersSent) {
      res.removeHeader('Content-Disposition');
      throw err;
    }
    const log = locals(res).log;
    if ((err as { code?: unknown }).code === 'ERR_STREAM_PREMATURE_CLOSE') log?.info('export abandoned by the client');
    else log?.error('export failed after its first byte', { error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
    res.destroy();
  }
}

const isStreamReply = (reply: object): reply is StreamReply => 'stream' in reply;

function dispatch(handler: OperationHandler<any>, offered: string[], exportSlots: ExportSlots | undefined): RequestHandler {
  return async (req: Request, res: Response) => {
    const l = locals(res);
    let mediaType = offered[0];
    if (offered.length > 1) {
      res.vary('Accept');
      mediaType = negotiate(req, offered);
      // Every answer type but JSON is an export (StreamReply): bounded before the handler reads anything.
      if (mediaType !== 'application/json' && exportSlots && l.principal) exportSlots.hold(l.principal.tenantId, res);
    }
    const input: OperationInput<any> = {
      params: req.params,
      query: req.query,
      body: req.body,
      ctx: l.ctx,
      mediaType: mediaType as never,
      rawBody: () => rawBodyOf(req),
      contentType: req.headers['content-type'] ?? null,
    };
    let reply;
    if (handler.access === 'member') {
      if (!l.principal) throw new UnauthenticatedError('no principal for a bearer operation');
      reply = await handler.handle({ ...input, principal: l.principal });
    } else {
      reply = await handler.handle(input);
    }
    if (isStreamReply(reply)) return sendStream(req, res, reply);
    if (reply.headers) res.set(reply.headers);
    res.status(Number(reply.status));
    if (reply.body === undefined) res.end();
    else if (typeof reply.body === 'string' && /^text\//.test(String(res.getHeader('Content-Type') ?? ''))) res.send(reply.body);
    else res.json(reply.body);
  };
}

export function mountOperations(options: MountOptions): Router {
  const { index, handlers } = options;
  checkHandlers(index, handlers);
  const router = Router({ caseSensitive: true, strict: true });
  for (const op of index.operations) {
    const bind = (_req: Request, res: Response, next: NextFunction) => {
      locals(res).operation = op;
      next();
    };
    const chain: RequestHandler[] = [bind];
    if (op.requiresBearer) chain.push(options.authenticate(op));
    if (op.requiresCallbackToken) chain.push(options.authenticateCallback);
    chain.push(options.parseBody(op), refuseNulCharacters, ...options.validator, dispatch(handlers[op.operationId]!, options.doc ? answerTypes(options.doc, op) : [], options.exportSlots));
    router[op.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete' | 'patch'](op.expressPath, ...chain);
  }
  // Inside the router, so nothing falls through to Express's own answers (e.g. its automatic OPTIONS).
  // What reaches it matched no operation, and its body is never read.
  router.use((req: Request, res: Response) => {
    const methods = index.methodsAt(req.path);
    if (methods.length === 0) throw new AppError('not-found', `No resource at ${req.method} ${req.path}`);
    const allow = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    res.setHeader('Allow', allow.join(', '));
    throw new AppError('method-not-allowed', `${req.method} is not allowed here; allowed: ${allow.join(', ')}`);
  });
  return router;
}
