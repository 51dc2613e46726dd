import { slugBase, slugCandidate } from '../../../core/organisation/slug';
import { parseHost } from '../../../api/middleware/request-context';

describe('workspace slugs', () => {
  test.each([
    ['Acme Trading LLC', 'x@y.z', 'acme-trading-llc'],
    ['  Ümid & Co.  ', 'x@y.z', 'umid-co'],
    ['Ташкент', 'john.doe@y.z', 'john-doe'],
    [null, 'API@y.z', 'api-workspace'],
    [null, '---@y.z', 'workspace'],
  ])('%s / %s → %s', (name, email, slug) => {
    expect(slugBase(name, email)).toBe(slug);
  });

  test('collisions get numeric suffixes', () => {
    expect([1, 2, 3].map((n) => slugCandidate('acme', n))).toEqual(['acme', 'acme-2', 'acme-3']);
  });
});

describe('hosts', () => {
  test.each([
    ['localhost:3000', { kind: 'central' }],
    ['api.localhost', { kind: 'central' }],
    ['127.0.0.1:3000', { kind: 'central' }],
    ['callbacks.localhost', { kind: 'callbacks' }],
    ['Acme.LOCALHOST:3000', { kind: 'tenant', slug: 'acme' }],
    ['localhost.', { kind: 'central' }],
    ['[::1]:3000', { kind: 'central' }],
    // Names nginx routes nowhere are served nothing.
    ['a.b.localhost', { kind: 'unknown' }],
    ['attacker.example', { kind: 'unknown' }],
    ['localhost.attacker.example', { kind: 'unknown' }],
    ['', { kind: 'unknown' }],
  ])('%s', (host, expected) => {
    expect(parseHost(host, 'localhost')).toEqual(expected);
  });
});
