import { dictionary } from '@zxcvbn-ts/language-common';

// NIST SP 800-63B: a new password is compared, whole, against a list of commonly used, expected or
// compromised passwords, and refused when it is on it. The list is the common-password dictionary that
// @zxcvbn-ts/language-common ships for zxcvbn (49,233 entries from breach corpora, all lower case).
// A password is on the list when its lower-case form (after NFC, as hashing normalises it), or that
// form read backwards, is an entry: a lookup in a set, microseconds. Nothing else is refused: no
// strength score, no composition rule, and an entry inside a longer passphrase is fine. (zxcvbn's own
// matching would also catch l33t spellings, but costs 20-200 ms of event loop on a random 72-character
// password, and its best reading of a whole entry is sometimes another pattern, so it is not used.)

let entries: ReadonlySet<string> | null = null;

function load(): ReadonlySet<string> {
  entries ??= new Set(dictionary['passwords-common']);
  return entries;
}

/** The number of entries, building the set first if no password was checked yet (a few ms, once). */
export function loadCommonPasswords(): number {
  return load().size;
}

/** Whether `password` is on the list of common passwords (the rule above). */
export function isCommonPassword(password: string): boolean {
  const list = load();
  const folded = password.normalize('NFC').toLowerCase();
  return list.has(folded) || list.has([...folded].reverse().join(''));
}
