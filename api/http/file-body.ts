import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

// A file sent as the request's body (a bank statement, up to 20 MiB) is written to a temporary file as it
// arrives, its size counted and its SHA-256 computed on the way, instead of being gathered into one buffer:
// the API's memory does not grow with the files it is sent, however many arrive at once. The handler reads it
// back a part at a time; the file is removed once the response is done.

/** A request body spooled to disk: its size, its SHA-256 in hex, and its bytes a part at a time. */
export class SpooledFile {
  constructor(
    private readonly file: string,
    readonly size: number,
    readonly sha256: string,
  ) {}

  /**
   * The bytes in parts of `partSize` (the last may be shorter), each read into the same buffer: a part is
   * valid until the next is asked for (whoever stores it has sent it by then), so reading a file takes one
   * part's memory, not the file's until the garbage collector comes by.
   */
  async *parts(partSize: number): AsyncGenerator<Buffer> {
    const handle = await open(this.file, 'r');
    const part = Buffer.allocUnsafe(partSize);
    try {
      for (;;) {
        let filled = 0;
        while (filled < partSize) {
          const { bytesRead } = await handle.read(part, filled, partSize - filled, null);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled === 0) return;
        yield filled === partSize ? part : part.subarray(0, filled);
        if (filled < partSize) return;
      }
    } finally {
      await handle.close();
    }
  }
}

/** The error body-parser gives for a body over its limit, which the problem handler answers 413. */
function tooLarge(limit: number): Error {
  return Object.assign(new Error(`request entity too large (over ${limit} bytes)`), { type: 'entity.too.large', status: 413, expose: true });
}

/**
 * The body of a request of one of `types` spooled to a temporary file (req.body a SpooledFile); a body of any
 * other type, or none, is left unread for the validator to refuse. Over `limit` bytes (declared or sent) it is
 * refused 413, after the rest of the request is read off as body-parser does, so that the client sees the answer.
 */
export function spoolFileBody(options: { limit: number; types: string[] }): RequestHandler {
  const { limit, types } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is(types)) {
      next();
      return;
    }
    const refuse = () => {
      req.unpipe();
      req.resume();
      finished(req, () => next(tooLarge(limit)));
    };
    if (Number(req.headers['content-length']) > limit) {
      refuse();
      return;
    }
    const file = path.join(tmpdir(), `statement-${randomUUID()}`);
    const hash = createHash('sha256');
    let size = 0;
    let over = false;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.byteLength;
        if (size > limit) {
          over = true;
          done(tooLarge(limit));
          return;
        }
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const removed = () => void rm(file, { force: true });
    // Piped rather than in the pipeline: a body over the limit stops the copy without destroying the request,
    // which is still read off before the 413. A client that goes away ends the copy with an error.
    req.pipe(counter);
    finished(req, (err) => {
      if (err && !over) counter.destroy(err);
    });
    pipeline(counter, createWriteStream(file, { flags: 'wx', mode: 0o600 })).then(
      () => {
        res.once('close', removed);
        req.body = new SpooledFile(file, size, hash.digest('hex'));
        next();
      },
      (err: unknown) => {
        removed();
        if (over) refuse();
        // The client went away before it sent the whole body: nobody is left to answer.
        else if (req.destroyed || (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') res.destroy();
        else next(err);
      },
    );
  };
}
