// Email validation: syntax here (pure), the domain's mail servers through the MailDomains port (DNS).
// Only the syntax and the domain are checked: the mailbox stays unverified, and the answer never depends
// on whether an account with that address exists.

export type EmailValidationCode = 'VALID' | 'INVALID_FORMAT' | 'NO_MAIL_SERVER' | 'DOMAIN_NOT_FOUND' | 'UNVERIFIED';

/** What DNS says about a domain as a mail destination. */
export type MailDomainAnswer =
  | 'MX' // it names mail servers
  | 'ADDRESS_ONLY' // no MX, but an A/AAAA record: mail goes to the host itself (RFC 5321 §5.1)
  | 'NULL_MX' // it says it takes no mail (RFC 7505), or has neither MX nor address
  | 'NOT_FOUND' // NXDOMAIN
  | 'UNREACHABLE'; // no answer, a server failure, a timeout

export interface MailDomains {
  lookup(domain: string): Promise<MailDomainAnswer>;
}

export interface EmailValidationReport {
  code: EmailValidationCode;
  domain: string;
  format: 'VALID' | 'INVALID';
  mailbox: 'UNVERIFIED';
  message: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** RFC 5321 limits the document's `email` format does not check: why the address is unusable, or null. */
export function syntaxProblem(email: string): string | null {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return 'an address is local-part@domain';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1).toLowerCase();
  if (Buffer.byteLength(local, 'utf8') > 64) return 'the part before @ is longer than 64 characters';
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return 'the part before @ has a misplaced dot';
  if (domain.length > 253) return 'the domain is longer than 253 characters';
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return 'the domain is not a host name with a dot';
  if (/^[0-9]+$/.test(labels.at(-1)!)) return 'the domain ends in a number, not a top-level domain';
  return null;
}

const MESSAGES: Record<Exclude<EmailValidationCode, 'INVALID_FORMAT'>, string> = {
  VALID: 'The domain accepts mail; the mailbox itself is not checked',
  NO_MAIL_SERVER: 'The domain exists but receives no mail',
  DOMAIN_NOT_FOUND: 'The domain does not exist',
  UNVERIFIED: 'The domain could not be checked now (DNS did not answer); the address may still be valid',
};

export async function validateEmail(email: string, domains: MailDomains): Promise<EmailValidationReport> {
  const trimmed = email.trim();
  const domain = trimmed.includes('@') ? trimmed.slice(trimmed.lastIndexOf('@') + 1).toLowerCase() : '';
  const problem = syntaxProblem(trimmed);
  if (problem) return { code: 'INVALID_FORMAT', domain, format: 'INVALID', mailbox: 'UNVERIFIED', message: `The address is not valid: ${problem}` };
  const answer = await domains.lookup(domain);
  const code: EmailValidationCode =
    answer === 'MX' || answer === 'ADDRESS_ONLY' ? 'VALID' : answer === 'NULL_MX' ? 'NO_MAIL_SERVER' : answer === 'NOT_FOUND' ? 'DOMAIN_NOT_FOUND' : 'UNVERIFIED';
  return { code, domain, format: 'VALID', mailbox: 'UNVERIFIED', message: MESSAGES[code] };
}
