import { createInflateRaw } from 'node:zlib';
import { StatementFormatError } from '../../core/bank-statements/statements';
import type { ByteSource } from './source';

// An XLSX file is a zip: 20 MiB of it can inflate to gigabytes. Before a spreadsheet reader sees it, its
// entries are walked the way a streaming unzip walks them (local header after local header, to the central
// directory) and inflated here into nothing but a byte count, so the whole file is proved to inflate to at
// most MAX_INFLATED_BYTES, with a few entries and no trick (ZIP64, encryption, entries the directory does not
// list), whatever the sizes it declares.
//
// The file is never held: a first pass over its bytes keeps only its tail, where the end record and the
// central directory are; a second walks the entries, each inflated a piece at a time into the count.

const MAX_INFLATED_BYTES = 100 * 1024 * 1024;
const MAX_ENTRIES = 1000;
const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const DESCRIPTOR = 0x08074b50;
/** The end record is in the last 22 bytes plus a comment of at most 65535. */
const END_SEARCH = 22 + 65535;
/** The bytes kept from the end of the file for the end record and the directory: a spreadsheet's directory is a few KiB. */
const TAIL_BYTES = 1024 * 1024;

const refuse = (why: string) => new StatementFormatError('malformed', `the XLSX file ${why}`);
const tooLarge = () => new StatementFormatError('too-large', `the XLSX file inflates to more than ${MAX_INFLATED_BYTES / (1024 * 1024)} MiB`);

interface Entry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  localOffset: number;
}

/** The last TAIL_BYTES bytes of the source (all of it when shorter), and its length. */
async function tailOf(source: ByteSource): Promise<{ tail: Uint8Array; length: number }> {
  // Twice the tail, so that the kept bytes move to the front once per TAIL_BYTES read, not on every chunk.
  const buffer = new Uint8Array(2 * TAIL_BYTES);
  let kept = 0;
  let length = 0;
  for await (const chunk of source()) {
    length += chunk.byteLength;
    if (chunk.byteLength >= TAIL_BYTES) {
      buffer.set(chunk.subarray(chunk.byteLength - TAIL_BYTES));
      kept = TAIL_BYTES;
      continue;
    }
    if (kept + chunk.byteLength > buffer.byteLength) {
      const keep = TAIL_BYTES - chunk.byteLength;
      buffer.copyWithin(0, kept - keep, kept);
      kept = keep;
    }
    buffer.set(chunk, kept);
    kept += chunk.byteLength;
  }
  return { tail: buffer.subarray(Math.max(0, kept - TAIL_BYTES), kept), length };
}

/** The entries the central directory lists and its offset, from the file's tail (`length` the file's). */
function centralDirectory(tail: Uint8Array, length: number): { entries: Entry[]; offset: number } {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  /** The offset in the file of the tail's first byte. */
  const base = length - tail.byteLength;
  let end = -1;
  for (let i = view.byteLength - 22; i >= Math.max(0, view.byteLength - END_SEARCH); i -= 1) {
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
  if (count > 0 && offset < base) throw refuse(`has a zip directory of more than ${TAIL_BYTES / (1024 * 1024)} MiB`);
  const entries: Entry[] = [];
  let at = offset - base;
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

/** The source's bytes read forward only: each read starts at or after the end of the one before. */
class ForwardReader {
  private readonly chunks: AsyncIterator<Uint8Array>;
  private chunk: Uint8Array = new Uint8Array(0);
  /** The offset in the file of the chunk's first byte. */
  private start = 0;

  constructor(source: ByteSource) {
    this.chunks = source()[Symbol.asyncIterator]();
  }

  /** The `n` bytes at `offset`, given to `take` a piece at a time (a piece is valid until `take` settles). */
  async each(offset: number, n: number, take: (piece: Uint8Array) => void | Promise<void>): Promise<void> {
    const end = offset + n;
    let at = offset;
    while (at < end) {
      while (at >= this.start + this.chunk.byteLength) {
        this.start += this.chunk.byteLength;
        const next = await this.chunks.next();
        if (next.done) throw refuse('is cut short');
        this.chunk = next.value;
      }
      const to = Math.min(this.chunk.byteLength, end - this.start);
      await take(this.chunk.subarray(at - this.start, to));
      at = this.start + to;
    }
  }

  async read(offset: number, n: number): Promise<DataView> {
    const bytes = Buffer.alloc(n);
    let have = 0;
    await this.each(offset, n, (piece) => {
      bytes.set(piece, have);
      have += piece.byteLength;
    });
    return new DataView(bytes.buffer, bytes.byteOffset, n);
  }

  async close(): Promise<void> {
    await this.chunks.return?.();
  }
}

/** The number of bytes an entry's data inflates to, the data written a piece at a time; refused past `budget`. */
class InflatedLength {
  private readonly inflate = createInflateRaw();
  private readonly ended: Promise<void>;
  private total = 0;

  constructor(budget: number) {
    this.ended = new Promise((resolve, reject) => {
      this.inflate.on('data', (chunk: Buffer) => {
        this.total += chunk.length;
        if (this.total > budget) this.inflate.destroy(tooLarge());
      });
      this.inflate.on('end', resolve);
      this.inflate.on('error', (error) => reject(error instanceof StatementFormatError ? error : refuse('has an entry that does not inflate')));
    });
    // A failure is taken up by the next write or by the end; until then it is no unhandled rejection.
    this.ended.catch(() => undefined);
  }

  async write(piece: Uint8Array): Promise<void> {
    // A copy: zlib may still hold it when the source has moved on to its next chunk.
    if (this.inflate.write(Buffer.from(piece))) return;
    await new Promise<void>((resolve, reject) => {
      this.inflate.once('drain', resolve);
      this.ended.then(resolve, reject);
    });
  }

  async end(): Promise<number> {
    this.inflate.end();
    await this.ended;
    return this.total;
  }

  /** Frees the inflater of an entry left unfinished. */
  abandon(): void {
    this.inflate.destroy();
  }
}

/** Refuses the source unless it is a plain zip that inflates to at most MAX_INFLATED_BYTES; reads it twice. */
export async function checkZipBounds(source: ByteSource): Promise<void> {
  const { tail, length } = await tailOf(source);
  const { entries, offset } = centralDirectory(tail, length);
  const bytes = new ForwardReader(source);
  try {
    let at = 0;
    let budget = MAX_INFLATED_BYTES;
    for (const entry of [...entries].sort((a, b) => a.localOffset - b.localOffset)) {
      const unlisted = refuse(`has data the zip directory does not list (before ${JSON.stringify(entry.name)})`);
      if (entry.localOffset !== at || at + 30 > offset) throw unlisted;
      const header = await bytes.read(at, 30);
      if (header.getUint32(0, true) !== LOCAL) throw unlisted;
      if (entry.flags & 1) throw refuse('is encrypted');
      if (entry.method !== 0 && entry.method !== 8) throw refuse(`uses compression method ${entry.method}`);
      const start = at + 30 + header.getUint16(26, true) + header.getUint16(28, true);
      const end = start + entry.compressedSize;
      if (end > offset) throw refuse('is cut short');
      if (entry.method === 0) {
        budget -= entry.compressedSize;
      } else {
        const inflated = new InflatedLength(budget);
        try {
          await bytes.each(start, entry.compressedSize, (piece) => inflated.write(piece));
          budget -= await inflated.end();
        } finally {
          inflated.abandon();
        }
      }
      if (budget < 0) throw tooLarge();
      at = end;
      // A data descriptor (flag 8) follows the data: 12 bytes, or 16 with its signature.
      if (entry.flags & 8) at += at + 4 <= offset && (await bytes.read(at, 4)).getUint32(0, true) === DESCRIPTOR ? 16 : 12;
    }
    if (at !== offset) throw refuse('has data the zip directory does not list');
  } finally {
    await bytes.close();
  }
}
