// The code pages bank files arrive in. A single-byte code page decodes any bytes at all, so the bytes are
// checked against the code page a file claims, a line at a time (textLinesOf in source.ts): a line that is
// valid UTF-8 with non-ASCII characters is UTF-8 (Cyrillic in Windows-1251 or CP866 practically never is),
// and a byte the code page leaves undefined, or a control character, means the file is not that text.

export type CodePage = 'windows-1251' | 'cp866' | 'utf-8';

export const CODE_PAGE_NAMES: Record<CodePage, string> = { 'windows-1251': 'Windows-1251', cp866: 'DOS (CP866)', 'utf-8': 'UTF-8' };
