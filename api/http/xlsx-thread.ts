import { once } from 'node:events';
import { parentPort } from 'node:worker_threads';
import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';

// A worker thread that builds XLSX workbooks (api/http/xlsx-threads.ts starts it): ExcelJS's streaming writer
// turns each row into XML and zips it, about 80 µs of CPU per journal line, which on the event loop kept every
// other request waiting (a million lines: 80 s). Here it costs a core of its own. Several exports share a
// thread, each a job: the API sends a job's rows a batch at a time as plain arrays of cells (structured
// clone), the thread answers each batch with an `ack` once its rows are written and the zip has nearly caught
// up with them, and sends the file's bytes back as they come (`data`, transferred, not copied), then `done`.
// The API sends the next batch only after the ack and once the response has drained, so a job holds a few
// batches here at most, whatever its length.

/** A cell as the API extracted it from a row: text, a number, or empty. */
export type Cell = string | number | null;

/** A column of the sheet: its header, how its cells read (api/http/table-export.ts's Column) and its width. */
export interface XlsxColumn {
  header: string;
  kind: 'text' | 'code' | 'amount' | 'integer';
  width: number;
}

export type ToThread =
  | { type: 'start'; job: number; sheetName: string; columns: XlsxColumn[] }
  | { type: 'rows'; job: number; rows: Cell[][] }
  | { type: 'end'; job: number }
  | { type: 'abort'; job: number };

export type FromThread =
  | { type: 'data'; job: number; bytes: Uint8Array }
  | { type: 'ack'; job: number }
  | { type: 'done'; job: number }
  | { type: 'error'; job: number; message: string };

/** A sheet holds 1,048,576 rows, its header among them: the rows past that go on to another sheet. */
const ROWS_PER_SHEET = 1_048_575;
/** The zip's output is sent on in pieces of about this size (it comes in many small chunks). */
const FLUSH_BYTES = 64 * 1024;
/** A sheet's XML the zip may have waiting before the next rows are written (about three batches of the journal). */
const ZIP_BACKLOG_BYTES = 1024 * 1024;

/**
 * Waits until the zip has taken the sheet's XML down to ZIP_BACKLOG_BYTES. ExcelJS writes a sheet's XML to
 * the zip's input without waiting for it, and the deflate runs on the thread pool with a callback on this
 * thread per piece: with rows coming as fast as this thread writes them, the XML waiting for it grew with the
 * export (a million journal lines: 250 MiB). The input is the sheet stream's pipe (a PassThrough of the zip
 * library); without one (another ExcelJS inside) there is nothing to wait for.
 */
async function zipCaughtUp(sheet: ExcelJS.Worksheet): Promise<void> {
  type Pipe = NodeJS.EventEmitter & { _writableState?: { length: number } };
  const pipes = (sheet as unknown as { stream?: { pipes?: Pipe[] } }).stream?.pipes ?? [];
  for (const pipe of pipes) {
    // Past the pipe's high-water mark its next 'drain' comes once it has passed everything on.
    while ((pipe._writableState?.length ?? 0) > ZIP_BACKLOG_BYTES) await once(pipe, 'drain');
  }
}

/**
 * An amount as an XLSX cell. Excel keeps numbers as doubles, which hold every decimal of 15 significant digits
 * or fewer exactly (and show it back digit for digit): such an amount is a number, formatted with its decimals.
 * A longer one would be rounded, so it stays text (right-aligned, the text format), exact but not summed.
 */
function xlsxAmount(text: string): { value: number | string; numFmt: string; exact: boolean } {
  const [whole = '', fraction = ''] = text.replace(/^-/, '').split('.');
  const significant = `${whole}${fraction}`.replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length > 15) return { value: text, numFmt: '@', exact: false };
  return { value: Number(text), numFmt: fraction.length > 0 ? `#,##0.${'0'.repeat(fraction.length)}` : '#,##0', exact: true };
}

interface Job {
  /** Writes the rows; resolves once the zip has caught up with them (ZIP_BACKLOG_BYTES). */
  add(rows: Cell[][]): Promise<void>;
  end(): Promise<void>;
  abort(): void;
}

function startJob(post: (message: FromThread, transfer?: ArrayBuffer[]) => void, job: number, sheetName: string, columns: XlsxColumn[]): Job {
  let aborted = false;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (aborted || pendingBytes === 0) return;
    const bytes = new Uint8Array(pendingBytes);
    let at = 0;
    for (const chunk of pending) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    pending = [];
    pendingBytes = 0;
    post({ type: 'data', job, bytes }, [bytes.buffer]);
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!aborted) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= FLUSH_BYTES) flush();
      }
      callback();
    },
  });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useStyles: true, useSharedStrings: false });
  let sheet: ExcelJS.Worksheet | null = null;
  let sheets = 0;
  let rows = 0;
  const startSheet = () => {
    sheet?.commit();
    sheets++;
    sheet = workbook.addWorksheet(sheets === 1 ? sheetName : `${sheetName} ${sheets}`, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columns.map((c) => ({ width: c.width }));
    const head = sheet.addRow(columns.map((c) => c.header));
    head.font = { bold: true };
    head.commit();
    rows = 0;
    return sheet;
  };
  let current = startSheet();
  return {
    async add(batch) {
      for (const values of batch) {
        if (rows === ROWS_PER_SHEET) current = startSheet();
        const amounts = columns.map((c, i) => (c.kind === 'amount' && typeof values[i] === 'string' ? xlsxAmount(values[i]) : null));
        const row = current.addRow(values.map((v, i) => amounts[i]?.value ?? v));
        amounts.forEach((a, i) => {
          if (!a) return;
          const cell = row.getCell(i + 1);
          cell.numFmt = a.numFmt;
          if (!a.exact) cell.alignment = { horizontal: 'right' };
        });
        row.commit();
        rows++;
      }
      await zipCaughtUp(current);
      flush();
    },
    async end() {
      current.commit();
      // Resolves once the zip has ended the sink: every byte has passed through write above.
      await workbook.commit();
      flush();
    },
    abort() {
      aborted = true;
      pending = [];
    },
  };
}

/** The thread's message loop: one job per export, keyed by the number the API gave it. */
function serve(port: NonNullable<typeof parentPort>): void {
  const jobs = new Map<number, Job>();
  const post = (message: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const fail = (job: number, err: unknown) => {
    jobs.get(job)?.abort();
    jobs.delete(job);
    post({ type: 'error', job, message: err instanceof Error ? err.message : String(err) });
  };
  port.on('message', (message: ToThread) => {
    const { job } = message;
    try {
      switch (message.type) {
        case 'start':
          jobs.set(job, startJob(post, job, message.sheetName, message.columns));
          break;
        case 'rows': {
          const writer = jobs.get(job);
          if (!writer) return;
          writer.add(message.rows).then(
            () => {
              if (jobs.has(job)) post({ type: 'ack', job });
            },
            (err: unknown) => fail(job, err),
          );
          break;
        }
        case 'end': {
          const writer = jobs.get(job);
          if (!writer) return;
          writer.end().then(
            () => {
              if (jobs.delete(job)) post({ type: 'done', job });
            },
            (err: unknown) => fail(job, err),
          );
          break;
        }
        case 'abort':
          // The client went away: this job's work stops here and its writer is left to the collector.
          jobs.get(job)?.abort();
          jobs.delete(job);
          break;
      }
    } catch (err) {
      fail(job, err);
    }
  });
}

if (parentPort) serve(parentPort);
