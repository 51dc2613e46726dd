import { createInflateRaw } from 'node:zlib';
import { StatementFormatError } from '../../core/bank-statements/statements';

// An XLSX file is a zip: 20 MiB of it can inflate to gigabytes. Before a spreadsheet reader sees it, its
// entries are walked the way a streaming unzip walks them (local header after local header, to the central
// directory) and inflated here into nothing but a byte count, so the whole file is proved to inflate to at
// most MAX_INFLATED_BYTES, with a few entries and no trick (ZIP64, encryption, entries the directory does not
// list), whatever the sizes it declares.

const MAX_INFLATED_BYTES = 100 * 1024 * 1024;
const MAX_ENTRIES = 1000;
const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const DESCRIPTOR = 0x08074b50;

const refuse = (why: string) => new StatementFormatError('malformed', `the XLSX file ${why}`);

interface Entry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  localOffset: number;
}

function centralDirectory(view: DataView): { entries: Entry[]; offset: number } {
  // The end record is in the last 22 bytes plus a comment of at most 65535.
  let end = -1;
  for (let i = view.byteLength - 22; i >= Math.max(0, view.byteLength - 22 - 65535); i -= 1) {
    if (view.getUint32(i, true) === END) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new StatementFormatError('truncated', 'the XLSX file has no zip directory (it is cut short or is no zip)');
  const count = view.getUint16(end + 10, true);
  const offset = view.getUint32(end + 16, true);
  if (count === 0xffff || offset === 0xffffffff) throw refuse('is a ZIP64 archive');
  if (count > MAX_ENTRIES) throw refuse(`has more than ${MAX_ENTRIES} entries`);
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < count; i += 1) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL) throw refuse('has a damaged zip directory');
    const nameLength = view.getUint16(at + 28, true);
    entries.push({
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      localOffset: view.getUint32(at + 42, true),
      name: Buffer.from(view.buffer, view.byteOffset + at + 46, Math.min(nameLength, view.byteLength - at - 46)).toString('latin1'),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return { entries, offset };
}

/** The number of bytes `data` inflates to, stopping as soon as it passes `budget`. */
function inflatedLength(data: Uint8Array, budget: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw();
    let total = 0;
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > budget) {
        inflate.destroy();
        reject(new StatementFormatError('too-large', `the XLSX file inflates to more than ${MAX_INFLATED_BYTES / (1024 * 1024)} MiB`));
      }
    });
    inflate.on('end', () => resolve(total));
    inflate.on('error', () => reject(refuse('has an entry that does not inflate')));
    inflate.end(data);
  });
}

export async function checkZipBounds(bytes: Uint8Array): Promise<void> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { entries, offset } = centralDirectory(view);
  let at = 0;
  let budget = MAX_INFLATED_BYTES;
  for (const entry of [...entries].sort((a, b) => a.localOffset - b.localOffset)) {
    if (entry.localOffset !== at || at + 30 > offset || view.getUint32(at, true) !== LOCAL) throw refuse(`has data the zip directory does not list (before ${JSON.stringify(entry.name)})`);
    if (entry.flags & 1) throw refuse('is encrypted');
    if (entry.method !== 0 && entry.method !== 8) throw refuse(`uses compression method ${entry.method}`);
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const end = start + entry.compressedSize;
    if (end > offset) throw refuse('is cut short');
    const data = bytes.subarray(start, end);
    budget -= entry.method === 0 ? data.length : await inflatedLength(data, budget);
    if (budget < 0) throw new StatementFormatError('too-large', `the XLSX file inflates to more than ${MAX_INFLATED_BYTES / (1024 * 1024)} MiB`);
    at = end;
    // A data descriptor (flag 8) follows the data: 12 bytes, or 16 with its signature.
    if (entry.flags & 8) at += at + 4 <= offset && view.getUint32(at, true) === DESCRIPTOR ? 16 : 12;
  }
  if (at !== offset) throw refuse('has data the zip directory does not list');
}
