import { addressRefusal, createReceiverResolver } from '../../../adapters/webhooks/http-sender';
import { startDnsStub, type DnsStub } from '../../helpers/dns-stub';

// Which receivers a webhook may reach: every address a host resolves to at an attempt must be public
// unicast (loopback only when allowed), IPv4 and IPv6, IPv4-mapped forms read as the IPv4 they map.
// Names resolve against a DNS server stub on 127.0.0.1, so nothing here needs a network.

let dns: DnsStub;
beforeAll(async () => {
  dns = await startDnsStub();
});
afterAll(async () => {
  await dns.close();
});

const resolver = (allowLoopback: boolean) => createReceiverResolver({ allowLoopback, dnsServers: [dns.server] });

describe('the receiver address check', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['192.0.2.10', 'reserved'],
  ])('when loopback is not allowed, then %s is refused (%s)', async (address, range) => {
    expect(addressRefusal(address, { allowLoopback: false })).toContain(`(${range})`);
    expect(await resolver(false)(address.includes(':') ? `[${address}]` : address)).toMatchObject({ ok: false, errorClass: 'ADDRESS_REFUSED' });
  });

  test.each(['10.0.0.1', '192.168.1.1', '169.254.169.254', '::ffff:10.0.0.1', 'fc00::1', 'fe80::1', '0.0.0.0'])(
    'when loopback is allowed, then %s is still refused: the switch opens loopback, never a private range',
    (address) => {
      expect(addressRefusal(address, { allowLoopback: true })).not.toBeNull();
    },
  );

  test.each(['127.0.0.1', '::1', '::ffff:127.0.0.1'])('when loopback is allowed, then %s is accepted', (address) => {
    expect(addressRefusal(address, { allowLoopback: true })).toBeNull();
  });

  test.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('when %s is public, then it is accepted', (address) => {
    expect(addressRefusal(address, { allowLoopback: false })).toBeNull();
  });

  test.each([
    ['::127.0.0.1', 'an IPv4-compatible address: ::7f00:1, not the IPv4 loopback'],
    ['::7f00:1', 'an IPv4-compatible address'],
    ['64:ff9b::127.0.0.1', 'NAT64: refused whatever it embeds'],
    ['64:ff9b::808:808', 'NAT64: refused whatever it embeds'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['4000::1', 'outside 2000::/3'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
  ])('IPv6 is an allow-list of global unicast (2000::/3): %s is refused, with loopback allowed or not (%s)', async (address) => {
    for (const allowLoopback of [false, true]) {
      expect(addressRefusal(address, { allowLoopback })).not.toBeNull();
      expect(await resolver(allowLoopback)(`[${address}]`)).toMatchObject({ ok: false, errorClass: 'ADDRESS_REFUSED' });
      // As the URL parser writes the host: the check sees what the connection would use.
      expect(await resolver(allowLoopback)(new URL(`http://[${address}]/`).hostname)).toMatchObject({ ok: false, errorClass: 'ADDRESS_REFUSED' });
    }
  });

  test('an IPv4-mapped IPv6 address is judged as the IPv4 address it maps, in every spelling', async () => {
    for (const address of ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1']) {
      expect(addressRefusal(address, { allowLoopback: false })).toContain('(loopback)');
      expect(addressRefusal(address, { allowLoopback: true })).toBeNull();
    }
    expect(addressRefusal('::ffff:8.8.8.8', { allowLoopback: false })).toBeNull();
    expect(addressRefusal('::ffff:10.1.2.3', { allowLoopback: true })).toContain('(private)');
  });

  test.each(['2606:4700::1111', '2a00:1450:4001:81b::200e'])('a global unicast IPv6 address, %s, is accepted', async (address) => {
    expect(addressRefusal(address, { allowLoopback: false })).toBeNull();
    expect(await resolver(false)(`[${address}]`)).toEqual({ ok: true, addresses: [{ address, family: 6 }] });
  });

  test('when a name resolves to loopback (IPv4 or IPv6), then it is refused unless loopback is allowed', async () => {
    expect(await resolver(false)('loopback.test')).toEqual({ ok: false, errorClass: 'ADDRESS_REFUSED', reason: expect.stringContaining('127.0.0.1') });
    expect(await resolver(false)('loopback6.test')).toEqual({ ok: false, errorClass: 'ADDRESS_REFUSED', reason: expect.stringContaining('::1') });
    expect(await resolver(true)('loopback.test')).toEqual({ ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] });
  });

  test('when a name resolves to a public and a private address, then it is refused as a whole', async () => {
    expect(await resolver(false)('mixed.test')).toEqual({ ok: false, errorClass: 'ADDRESS_REFUSED', reason: expect.stringContaining('10.0.0.1') });
    expect(await resolver(true)('mixed6.test')).toEqual({ ok: false, errorClass: 'ADDRESS_REFUSED', reason: expect.stringContaining('fd00::1') });
  });

  test('when a name resolves to the cloud metadata address, then it is refused', async () => {
    expect(await resolver(true)('metadata.test')).toMatchObject({ ok: false, errorClass: 'ADDRESS_REFUSED' });
  });

  test('when a name resolves to public addresses only, then each of them is what the connection may use', async () => {
    expect(await resolver(false)('public.test')).toEqual({
      ok: true,
      addresses: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    });
  });

  test('when a name does not resolve, then the attempt fails as DNS, not as a refusal', async () => {
    expect(await resolver(false)('nowhere.test')).toMatchObject({ ok: false, errorClass: 'DNS' });
  });
});
