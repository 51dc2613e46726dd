import iconv from 'iconv-lite';
import { StatementFormatError } from '../../core/bank-statements/statements';
import { firstInvalidUtf8, refuseControlCharacters, strictUtf8 } from './fields';

// The code pages bank files arrive in. A single-byte code page decodes any bytes at all, so the bytes are
// checked against the code page a file claims: a line that is valid UTF-8 with non-ASCII characters is UTF-8
// (Cyrillic in Windows-1251 or CP866 practically never is), and a byte the code page leaves undefined, or a
// control character, means the file is not that text.

export type CodePage = 'windows-1251' | 'cp866' | 'utf-8';

export const CODE_PAGE_NAMES: Record<CodePage, string> = { 'windows-1251': 'Windows-1251', cp866: 'DOS (CP866)', 'utf-8': 'UTF-8' };

export function decodeCodePage(bytes: Uint8Array, page: CodePage, what: string): string {
  let text: string;
  if (page === 'utf-8') {
    text = strictUtf8(bytes, what);
  } else {
    let start = 0;
    let line = 1;
    while (start < bytes.length) {
      let end = bytes.indexOf(0x0a, start);
      if (end < 0) end = bytes.length;
      let high = false;
      for (let i = start; i < end && !high; i += 1) high = bytes[i]! >= 0x80;
      if (high && firstInvalidUtf8(bytes, start, end) < 0) {
        throw new StatementFormatError('encoding', `${what} is declared ${CODE_PAGE_NAMES[page]}, but this line is UTF-8`, line);
      }
      start = end + 1;
      line += 1;
    }
    text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), page);
  }
  refuseControlCharacters(text, what);
  return text;
}
