import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import type { Test } from 'supertest';

// Reading a report's exports back: CSV through csv-parse, XLSX through ExcelJS.

export const CSV = 'text/csv';
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The request with its answer's body kept as a Buffer (an XLSX file). */
export function asBuffer(req: Test): Test {
  return req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
}

/** CSV records keyed by the header's names. */
export function readCsv(text: string): Promise<Record<string, string>[]> {
  return new Promise((resolve, reject) => parse(text, { columns: true }, (err, parsed: Record<string, string>[]) => (err ? reject(err) : resolve(parsed))));
}

/** The first sheet's name and its rows' values (ExcelJS's values are 1-based: the leading hole is dropped). */
export async function readXlsx(body: Buffer): Promise<{ name: string; rows: unknown[][] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as never);
  const sheet = workbook.worksheets[0]!;
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => rows.push((row.values as unknown[]).slice(1)));
  return { name: sheet.name, rows };
}
