import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';

// The JSON body as the client sent it, for rules that floats cannot decide (decimal places of a rate).
const RAW_BODY = Symbol('rawBody');

/** `verify` hook of express.json: keeps the bytes it already read. */
export function keepRawBody(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  (req as IncomingMessage & { [RAW_BODY]?: Buffer })[RAW_BODY] = buf;
}

export function rawBodyOf(req: Request): string {
  return (req as Request & { [RAW_BODY]?: Buffer })[RAW_BODY]?.toString('utf8') ?? '';
}
