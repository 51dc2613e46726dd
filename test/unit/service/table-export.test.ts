import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Response } from 'express';
import ExcelJS from 'exceljs';
import { CSV, XLSX, guardCsvCell, tableReply, type Column } from '../../../api/http/table-export';
import { createXlsxThreads, type XlsxThreads } from '../../../api/http/xlsx-threads';
import { createExportSlots } from '../../../api/http/export-limits';
import { AppError } from '../../../core/shared/problems';

describe('guardCsvCell: no cell of free text reads as a formula, whatever list separator the spreadsheet splits at', () => {
  test.each([
    ['=1', "'=1"],
    // Excel with `;` as its list separator (Uzbek, Russian settings) splits this field into x, =2+5 and y.
    ['x;=2+5;y', "x;'=2+5;y"],
    ['a,+1', "a,'+1"],
    ['a\t@x', "a\t'@x"],
    ['-5', "'-5"],
    ['x; =1', "x; '=1"],
    ['line one\n=HYPERLINK("http://example.com")\r\n+2', 'line one\n\'=HYPERLINK("http://example.com")\r\n\'+2'],
    ['\tleading tab', "'\tleading tab"],
    // A leading tab or carriage return is guarded as before; the trigger after it too (a tab can be a separator).
    ['\t=1', "'\t'=1"],
  ])('free text %j is written %j', (text, written) => {
    expect(guardCsvCell('text', text)).toBe(written);
  });

  test.each(['Invoice 17', 'Оплата от покупателя; kirim', 'a, "quoted" memo', 'a - b', 'cost+fee', 'x=1', 'user@example.com', ''])(
    'free text with no trigger at a cell start, %j, is written as it is',
    (text) => {
      expect(guardCsvCell('text', text)).toBe(text);
    },
  );

  test('amounts keep their minus sign, codes and integers are written as they are, an empty cell stays empty', () => {
    expect(guardCsvCell('amount', '-5.00')).toBe('-5.00');
    expect(guardCsvCell('amount', '-1234567890123456.78')).toBe('-1234567890123456.78');
    expect(guardCsvCell('code', '-')).toBe('-');
    expect(guardCsvCell('code', '110+120-130')).toBe('110+120-130');
    expect(guardCsvCell('integer', -3)).toBe(-3);
    expect(guardCsvCell('text', null)).toBeNull();
  });
});

describe('tableReply as CSV', () => {
  const columns: Column<{ n: number; text: string }>[] = [
    { header: 'n', kind: 'integer', value: (r) => r.n },
    { header: 'text', kind: 'text', value: (r) => r.text },
  ];
  const noThreads: XlsxThreads = { start: () => { throw new Error('a CSV export builds no workbook'); } };

  test('other callbacks run between batches, even when every batch is at hand at once', async () => {
    let read = 0;
    function* batches() {
      for (let i = 0; i < 10; i++) {
        read++;
        yield [{ n: i, text: i === 3 ? 'x;=2+5;y' : 'plain' }];
      }
    }
    let readWhenServed = -1;
    setImmediate(() => (readWhenServed = read));
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await tableReply(CSV, 'x', 'X', columns, batches(), noThreads).stream(out);
    expect(readWhenServed).toBe(1);
    expect(text.split('\n')).toEqual(['n,text', '0,plain', '1,plain', '2,plain', "3,x;'=2+5;y", ...[4, 5, 6, 7, 8, 9].map((n) => `${n},plain`), '']);
  });
});

describe('tableReply as XLSX, built on a thread', () => {
  type Row = { id: string; n: number; amount: string | null; memo: string | null };
  const columns: Column<Row>[] = [
    { header: 'id', kind: 'code', width: 38, value: (r) => r.id },
    { header: 'n', kind: 'integer', value: (r) => r.n },
    { header: 'amount', kind: 'amount', value: (r) => r.amount },
    { header: 'memo', kind: 'text', value: (r) => r.memo },
  ];
  const rows = (count: number, tag: string): Row[][] =>
    Array.from({ length: Math.ceil(count / 1000) }, (_, b) =>
      Array.from({ length: Math.min(1000, count - b * 1000) }, (_, i) => {
        const n = b * 1000 + i;
        return { id: `${tag}-${n}`, n, amount: n % 5 === 0 ? null : n % 7 === 0 ? '1234567890123456.78' : `-${n}.50`, memo: n % 3 === 0 ? '=1+1' : `memo ${n}` };
      }),
    );
  const download = async (stream: (out: PassThrough) => Promise<void>) => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await stream(out);
    return Buffer.concat(chunks);
  };
  const read = async (bytes: Buffer) => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as never);
    return workbook.worksheets[0]!;
  };

  test('two exports on one thread at once each get their whole workbook; one whose client went away is dropped without disturbing them', async () => {
    const threads = createXlsxThreads(1);
    const abandoned = new PassThrough();
    const gone = tableReply(XLSX, 'x', 'Gone', columns, rows(5000, 'gone'), threads).stream(abandoned);
    abandoned.once('data', () => abandoned.destroy());
    const [a, b] = await Promise.all([
      download((out) => tableReply(XLSX, 'a', 'A', columns, rows(2500, 'a'), threads).stream(out)),
      download((out) => tableReply(XLSX, 'b', 'B', columns, rows(1200, 'b'), threads).stream(out)),
    ]);
    await expect(gone).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const [sheetA, sheetB] = [await read(a), await read(b)];
    expect([sheetA.name, sheetA.rowCount, sheetB.name, sheetB.rowCount]).toEqual(['A', 2501, 'B', 1201]);
    expect(sheetA.getRow(1).values).toEqual([undefined, 'id', 'n', 'amount', 'memo']);
    const row = (n: number) => (sheetA.getRow(n + 2).values as unknown[]).slice(1);
    expect(row(0)).toEqual(['a-0', 0, undefined, '=1+1']);
    expect(row(1)).toEqual(['a-1', 1, -1.5, 'memo 1']);
    expect(row(7)).toEqual(['a-7', 7, '1234567890123456.78', 'memo 7']);
    expect(sheetA.getRow(3).getCell(3).numFmt).toBe('#,##0.00');
    expect(sheetA.getRow(9).getCell(3).alignment).toEqual({ horizontal: 'right' });
    expect(sheetA.getRow(2).getCell(4).type).toBe(ExcelJS.ValueType.String);
    expect(sheetB.getRow(1201).getCell(1).value).toBe('b-1199');
  });

  test('a failure before the first byte rejects with nothing written, so the answer is still a problem document', async () => {
    const failing: XlsxThreads = {
      start: () => ({ rows: () => Promise.reject(new Error('the XLSX thread failed: no thread')), end: () => Promise.resolve(), abort: () => undefined }),
    };
    const out = new PassThrough();
    let written = 0;
    out.on('data', (c: Buffer) => (written += c.length));
    await expect(tableReply(XLSX, 'x', 'X', columns, rows(10, 'x'), failing).stream(out)).rejects.toThrow('no thread');
    expect(written).toBe(0);
  });
});

describe('createExportSlots', () => {
  const response = () => new EventEmitter() as unknown as Response;
  const refusal = (f: () => void) => {
    try {
      f();
    } catch (err) {
      return err instanceof AppError ? { type: err.type, status: err.status, headers: err.headers } : err;
    }
    return null;
  };

  test('a workspace past its share is 429, the process past its bound 503, both with Retry-After; a slot comes back once, when its answer ends', () => {
    const slots = createExportSlots({ perWorkspace: 1, perProcess: 2 });
    const a = response();
    slots.hold('a', a);
    expect(refusal(() => slots.hold('a', response()))).toEqual({ type: 'too-many-requests', status: 429, headers: { 'Retry-After': '5' } });
    const b = response();
    slots.hold('b', b);
    expect(refusal(() => slots.hold('c', response()))).toEqual({ type: 'server-busy', status: 503, headers: { 'Retry-After': '5' } });
    // Sent: 'finish', then 'close'; the slot comes back once.
    (a as unknown as EventEmitter).emit('finish');
    (a as unknown as EventEmitter).emit('close');
    slots.hold('c', response());
    expect(refusal(() => slots.hold('d', response()))).toMatchObject({ status: 503 });
    // The client went away: 'close' alone.
    (b as unknown as EventEmitter).emit('close');
    expect(refusal(() => slots.hold('a', response()))).toBeNull();
  });
});
