// Workspace host names: <slug>.<base domain>. Lowercase a-z, 0-9 and '-', never leading or trailing '-'.

const RESERVED = new Set(['api', 'www', 'app', 'admin', 'callbacks', 'docs', 'dev', 'mail', 'static', 'status', 'temporal']);
const MAX_BASE = 40;

export function slugBase(companyName: string | null, email: string): string {
  const source = companyName && /[a-z0-9]/i.test(companyName.normalize('NFKD')) ? companyName : email.split('@')[0];
  const base = source
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_BASE)
    .replace(/-+$/g, '');
  const slug = base || 'workspace';
  return RESERVED.has(slug) ? `${slug}-workspace` : slug;
}

/** Candidates in the order they are tried: base, base-2, base-3, ... */
export function slugCandidate(base: string, attempt: number): string {
  return attempt <= 1 ? base : `${base}-${attempt}`;
}
