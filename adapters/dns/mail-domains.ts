import { Resolver } from 'node:dns/promises';
import type { MailDomainAnswer, MailDomains } from '../../core/identity/email-validation';

// MX (or A/AAAA) look-ups through node:dns with a short deadline. ENODATA (the name exists, no record of
// that type) and ENOTFOUND (NXDOMAIN) are answers; anything else (timeouts, SERVFAIL, refused, no network)
// means DNS could not tell.

export interface MailDomainOptions {
  /** DNS servers ("1.1.1.1", "127.0.0.1:5353"); empty = the system's. */
  servers: string[];
  timeoutMs: number;
}

const codeOf = (err: unknown) => (err as { code?: string }).code ?? '';

export function createMailDomains(options: MailDomainOptions): MailDomains {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers.length > 0) resolver.setServers(options.servers);

  /** Whether the name has an address: true, false (ENODATA), or the failure code. */
  async function hasAddress(domain: string): Promise<boolean | string> {
    const tries = await Promise.allSettled([resolver.resolve4(domain), resolver.resolve6(domain)]);
    if (tries.some((t) => t.status === 'fulfilled' && t.value.length > 0)) return true;
    const codes = tries.map((t) => (t.status === 'rejected' ? codeOf(t.reason) : 'ENODATA'));
    if (codes.includes('ENOTFOUND')) return 'ENOTFOUND';
    return codes.every((c) => c === 'ENODATA') ? false : codes.find((c) => c !== 'ENODATA')!;
  }

  async function lookup(domain: string): Promise<MailDomainAnswer> {
    try {
      const records = await resolver.resolveMx(domain);
      // RFC 7505 null MX: a single record with an empty exchange (".") says the domain takes no mail.
      if (records.length === 0 || records.every((r) => r.exchange === '' || r.exchange === '.')) return 'NULL_MX';
      return 'MX';
    } catch (err) {
      const code = codeOf(err);
      if (code === 'ENOTFOUND') return 'NOT_FOUND';
      if (code !== 'ENODATA') return 'UNREACHABLE';
    }
    const address = await hasAddress(domain);
    if (address === true) return 'ADDRESS_ONLY';
    if (address === false) return 'NULL_MX';
    return address === 'ENOTFOUND' ? 'NOT_FOUND' : 'UNREACHABLE';
  }

  return {
    async lookup(domain) {
      // The resolver's timeout is per query; one deadline bounds the whole look-up (MX, then A and AAAA).
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<MailDomainAnswer>((resolve) => {
        timer = setTimeout(() => resolve('UNREACHABLE'), options.timeoutMs * 2 + 100);
      });
      try {
        return await Promise.race([lookup(domain), deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
