import type { Response } from 'express';
import { AppError } from '../../core/shared/problems';

// How many exports (CSV, XLSX, an hledger journal) run at once. An export reads and writes for as long as
// its file takes (a million journal lines: tens of seconds), so unbounded, one workspace asking for many at
// once takes the database, the XLSX threads and the event loop from everyone. A workspace may have
// `perWorkspace` running in this process (its next is 429 too-many-requests), the process `perProcess` of
// every workspace's together (the next is 503 server-busy); both with Retry-After, and nothing queues: a
// refused export has cost nothing but its authentication. A slot is taken before the handler reads anything and
// held until the response has ended, however it ends (sent, refused with a problem, failed, or the client
// gone), so no path leaks one.

/** Seconds a refused export is told to wait: a typical export takes a few seconds. */
const RETRY_AFTER_SECONDS = 5;

export interface ExportSlots {
  /**
   * Takes a slot of `workspace`'s for the answer `res`, given back when `res` ends; throws 429 when the
   * workspace has its share running, 503 when the process has.
   */
  hold(workspace: string, res: Response): void;
}

export function createExportSlots(options: { perWorkspace: number; perProcess: number }): ExportSlots {
  const held = new Map<string, number>();
  let running = 0;
  const refuse = (type: 'too-many-requests' | 'server-busy', detail: string) =>
    new AppError(type, `${detail}; try again in ${RETRY_AFTER_SECONDS} seconds`, { retryAfter: RETRY_AFTER_SECONDS }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
  return {
    hold(workspace, res) {
      const mine = held.get(workspace) ?? 0;
      if (mine >= options.perWorkspace) {
        throw refuse('too-many-requests', `This workspace has ${mine} exports running, the most it may have at once`);
      }
      if (running >= options.perProcess) {
        throw refuse('server-busy', 'The service is running the most exports it runs at once');
      }
      held.set(workspace, mine + 1);
      running += 1;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        running -= 1;
        const left = (held.get(workspace) ?? 1) - 1;
        if (left > 0) held.set(workspace, left);
        else held.delete(workspace);
      };
      // 'close' follows 'finish', and comes alone when the connection ends first (the client went away).
      res.once('finish', release).once('close', release);
    },
  };
}
