import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Cell, FromThread, ToThread, XlsxColumn } from './xlsx-thread';

// The XLSX workbooks of this process's exports are built on `size` worker threads (EXPORT_XLSX_THREADS),
// started when the first XLSX export asks and kept; an export is a job on the thread with the fewest (several
// share one, each getting its turn a batch at a time, rather than waiting in line without a byte sent). The
// event loop only extracts each batch's cells and passes the bytes the thread sends back to the response.
//
// The thread's entry is api/http/xlsx-thread: compiled (dist/, what the API runs), its .js file beside this
// one. Run from the TypeScript sources, as the tests do through @swc/jest, there is no .js file and a thread
// has no transform of its own (jest's lives in jest's module registry, not in Node's require): the thread then
// registers the same SWC compiler as the tests' child processes (test/helpers/swc-register.js) before it loads
// the .ts entry. Only code running from .ts sources takes that path, and only the tests do.

/** A thread's heap (MiB): a job holds about one batch, and a bounded heap is collected early (docs/operations.md, API_MAX_OLD_SPACE_MB). */
const THREAD_HEAP_MB = 96;

interface JobHandlers {
  data(bytes: Uint8Array): void;
  /** The thread's answer to the last message awaited (a batch's ack, or the end's done). */
  answered(): void;
  fail(err: Error): void;
}

interface Thread {
  worker: Worker;
  jobs: Map<number, JobHandlers>;
}

/** One export's workbook on a thread. */
export interface XlsxJob {
  /** Sends a batch of rows; resolves once the thread has written them (rejects when the thread failed). */
  rows(rows: Cell[][]): Promise<void>;
  /** Ends the workbook; resolves once the thread has sent its last byte. */
  end(): Promise<void>;
  /** Drops the job, wherever it is (the client went away, the rows failed); nothing once it has ended. */
  abort(): void;
}

export interface XlsxThreads {
  /** Starts a workbook of one sheet (more past a sheet's rows) on a thread; its bytes go to `data` as they come. */
  start(sheetName: string, columns: XlsxColumn[], data: (bytes: Uint8Array) => void): XlsxJob;
}

function startWorker(): Worker {
  if (__filename.endsWith('.js')) return new Worker(path.join(__dirname, 'xlsx-thread.js'), { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
  const register = path.join(__dirname, '..', '..', 'test', 'helpers', 'swc-register.js');
  const entry = path.join(__dirname, 'xlsx-thread.ts');
  return new Worker(`require(${JSON.stringify(register)});\nrequire(${JSON.stringify(entry)});`, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
}

export function createXlsxThreads(size: number): XlsxThreads {
  const threads: Array<Thread | null> = Array.from({ length: Math.max(1, size) }, () => null);
  let lastJob = 0;

  const start = (slot: number): Thread => {
    const worker = startWorker();
    const thread: Thread = { worker, jobs: new Map() };
    worker.on('message', (message: FromThread) => {
      const job = thread.jobs.get(message.job);
      if (!job) return;
      if (message.type === 'data') job.data(message.bytes);
      else if (message.type === 'error') job.fail(new Error(`the XLSX thread failed: ${message.message}`));
      else job.answered();
    });
    const stop = (err: Error) => {
      if (threads[slot] === thread) threads[slot] = null;
      for (const job of thread.jobs.values()) job.fail(err);
      thread.jobs.clear();
    };
    worker.on('error', (err) => stop(new Error(`the XLSX thread failed: ${err.message}`, { cause: err })));
    worker.on('exit', (code) => stop(new Error(`the XLSX thread stopped (exit code ${code})`)));
    // An idle thread is no reason to keep the process alive: referenced while it has jobs (addJob).
    // After the listeners: a 'message' listener refs the thread's port again.
    worker.unref();
    threads[slot] = thread;
    return thread;
  };

  /** A thread keeps the process alive while it has jobs, and only then. */
  const addJob = (thread: Thread, id: number, job: JobHandlers) => {
    thread.jobs.set(id, job);
    if (thread.jobs.size === 1) thread.worker.ref();
  };
  /** False when the job had gone already (ended, or failed with its thread). */
  const removeJob = (thread: Thread, id: number): boolean => {
    if (!thread.jobs.delete(id)) return false;
    if (thread.jobs.size === 0) thread.worker.unref();
    return true;
  };

  /** The thread with the fewest jobs; a new one while a slot is free and every running thread is busy. */
  const pick = (): Thread => {
    let best: Thread | null = null;
    for (const thread of threads) if (thread && (!best || thread.jobs.size < best.jobs.size)) best = thread;
    const free = threads.indexOf(null);
    if (free >= 0 && (!best || best.jobs.size > 0)) return start(free);
    return best!;
  };

  return {
    start(sheetName, columns, data) {
      const thread = pick();
      const id = ++lastJob;
      let waiting: { resolve: () => void; reject: (err: Error) => void } | null = null;
      let failure: Error | null = null;
      /** The thread's next answer to this job (an ack, or done). */
      const answer = () => {
        const next = new Promise<void>((resolve, reject) => (failure ? reject(failure) : (waiting = { resolve, reject })));
        next.catch(() => undefined);
        return next;
      };
      const send = (message: ToThread) => thread.worker.postMessage(message);
      addJob(thread, id, {
        data,
        answered() {
          const w = waiting;
          waiting = null;
          w?.resolve();
        },
        fail(err) {
          failure = err;
          const w = waiting;
          waiting = null;
          w?.reject(err);
        },
      });
      send({ type: 'start', job: id, sheetName, columns });
      return {
        rows(rows) {
          const taken = answer();
          send({ type: 'rows', job: id, rows });
          return taken;
        },
        async end() {
          const built = answer();
          send({ type: 'end', job: id });
          await built;
          removeJob(thread, id);
        },
        abort() {
          if (removeJob(thread, id) && !failure) send({ type: 'abort', job: id });
        },
      };
    },
  };
}
