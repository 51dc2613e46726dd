import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

// A tiny DNS server on 127.0.0.1 (UDP) for the email-validation and webhook-address tests, answering from
// a zone in memory:
//   mx.test        MX mail.mx.test
//   address.test   no MX, A 192.0.2.10 (mail goes to the host itself)
//   nullmx.test    MX 0 "." (RFC 7505: takes no mail)
//   bare.test      exists, no MX and no address
//   the names of ADDRESSES below: their A and AAAA records
//   anything else  NXDOMAIN; servfail.test answers SERVFAIL; silent.test never answers

/** Receiver names for the webhook address checks. */
const ADDRESSES: Record<string, { A?: string[]; AAAA?: string[] }> = {
  'public.test': { A: ['93.184.215.14'], AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'] },
  'loopback.test': { A: ['127.0.0.1'] },
  'loopback6.test': { AAAA: ['::1'] },
  'mixed.test': { A: ['93.184.215.14', '10.0.0.1'] },
  'mixed6.test': { A: ['93.184.215.14'], AAAA: ['fd00::1'] },
  'metadata.test': { A: ['169.254.169.254'] },
};

export interface DnsStub {
  server: string;
  queries: number;
  close(): Promise<void>;
}

export async function startDnsStub(): Promise<DnsStub> {
  const socket = dgram.createSocket('udp4');
  const stub = { queries: 0 } as DnsStub;
  socket.on('message', (message, remote) => {
    stub.queries += 1;
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    if (name === 'silent.test') return;
    const answers: dnsPacket.Answer[] = [];
    let rcode: 'NOERROR' | 'NXDOMAIN' | 'SERVFAIL' = 'NOERROR';
    if (name === 'servfail.test') rcode = 'SERVFAIL';
    else if (name === 'mx.test' && question.type === 'MX') answers.push({ type: 'MX', name, ttl: 60, data: { preference: 10, exchange: 'mail.mx.test' } });
    else if (name === 'address.test' && question.type === 'A') answers.push({ type: 'A', name, ttl: 60, data: '192.0.2.10' });
    else if (name === 'nullmx.test' && question.type === 'MX') answers.push({ type: 'MX', name, ttl: 60, data: { preference: 0, exchange: '.' } });
    else if (ADDRESSES[name] && (question.type === 'A' || question.type === 'AAAA')) {
      for (const data of ADDRESSES[name][question.type] ?? []) answers.push({ type: question.type, name, ttl: 60, data });
    } else if (!['mx.test', 'address.test', 'nullmx.test', 'bare.test', ...Object.keys(ADDRESSES)].includes(name)) rcode = 'NXDOMAIN';
    const reply = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (rcode === 'NXDOMAIN' ? 3 : rcode === 'SERVFAIL' ? 2 : 0),
      questions: query.questions,
      answers,
    });
    socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  stub.server = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => socket.close(() => resolve()));
  return stub;
}
