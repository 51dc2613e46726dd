import { lookup as systemLookup, Resolver } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { RESPONSE_READ_BYTES, responseExcerpt, type WebhookErrorClass, type WebhookRequest, type WebhookResponse, type WebhookSender } from '../../core/webhooks/webhooks';

// The webhook sender: undici with an agent of its own per attempt. The receiver's host is resolved once per
// attempt and every address is checked (ipaddr.js: IPv4-mapped IPv6 is read as the IPv4 address it maps;
// IPv4 passes in the 'unicast' range, IPv6 only in global unicast 2000::/3, 'loopback' too when allowed); the connection then goes to exactly
// those checked addresses (the agent's lookup answers them), so a second, different DNS answer cannot slip
// in between the check and the connect. Redirects are never followed; TLS certificates are verified; one
// deadline covers resolution, connection, request and the (bounded) read of the answer.

export interface WebhookSenderOptions {
  /** Plain http receivers (development and tests). */
  allowHttp: boolean;
  /** Receivers on loopback, 127.0.0.0/8 and ::1 (development and tests); never any other non-public range. */
  allowLoopback: boolean;
  /** One attempt's whole deadline. */
  timeoutMs: number;
  /** DNS servers to ask ("host" or "host:port"); empty or absent: the system's resolver (getaddrinfo, /etc/hosts included). */
  dnsServers?: string[];
}

/** Global unicast, the one IPv6 block a receiver may be in (2000::/3); within it ipaddr.js still names the special ranges. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * The address as the connection would use it: IPv4 as it is; IPv6 as the URL parser writes it (the WHATWG
 * host parser, which also reads `::a.b.c.d` as the IPv4-compatible `::a0b:c0d`, where ipaddr.js alone
 * would read it as IPv4-mapped); null when it is no IP address (a zone id included).
 */
function canonicalAddress(address: string): string | null {
  const kind = isIP(address);
  if (kind === 4) return address;
  if (kind !== 6) return null;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

/**
 * Why an address may not receive webhooks, or null when it may. An allow-list: IPv4 (an IPv4-mapped IPv6
 * address is judged as the IPv4 address it maps) must be public unicast, or loopback when allowed; IPv6 must
 * be global unicast, 2000::/3 outside its special ranges (documentation, Teredo, 6to4, ORCHID, …), or ::1 when
 * loopback is allowed. So IPv4-compatible (::7f00:1), NAT64 (64:ff9b::/96, whatever IPv4 it embeds),
 * IPv4-translated, unique-local, link-local and every block IANA has not handed out are refused.
 */
export function addressRefusal(address: string, options: { allowLoopback: boolean }): string | null {
  const canonical = canonicalAddress(address);
  if (canonical === null || !ipaddr.isValid(canonical)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(canonical);
  const range = parsed.range();
  if (range === 'loopback' && options.allowLoopback) return null;
  if (parsed.kind() === 'ipv4') return range === 'unicast' ? null : `${parsed.toString()} is not a public address (${range})`;
  if (range === 'unicast' && parsed.match(GLOBAL_UNICAST)) return null;
  return `${parsed.toString()} is not a public address (${range === 'unicast' ? 'outside global unicast 2000::/3' : range})`;
}

export type ResolvedReceiver = { ok: true; addresses: Array<{ address: string; family: 4 | 6 }> } | { ok: false; errorClass: 'ADDRESS_REFUSED' | 'DNS'; reason: string };

type Resolve = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

function resolverOf(servers: string[] | undefined): Resolve {
  if (!servers || servers.length === 0) {
    return async (hostname) => (await systemLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
  const resolver = new Resolver({ tries: 1 });
  resolver.setServers(servers);
  return async (hostname) => {
    const tries = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const found = tries.flatMap((t, i) => (t.status === 'fulfilled' ? t.value.map((address) => ({ address, family: (i === 0 ? 4 : 6) as 4 | 6 })) : []));
    if (found.length === 0) throw (tries.find((t) => t.status === 'rejected') as PromiseRejectedResult | undefined)?.reason ?? new Error(`${hostname} has no address`);
    return found;
  };
}

/**
 * The addresses a receiver host may be reached at this attempt: an IP literal as it is, a name resolved
 * now. Refused as a whole when any address is not public, so a name cannot mix a public address with an
 * internal one and hope the connection picks the latter.
 */
export function createReceiverResolver(options: { allowLoopback: boolean; dnsServers?: string[] }): (hostname: string) => Promise<ResolvedReceiver> {
  const resolve = resolverOf(options.dnsServers);
  return async (host) => {
    const hostname = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    let addresses: Array<{ address: string; family: 4 | 6 }>;
    if (isIP(hostname)) {
      addresses = [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await resolve(hostname);
      } catch (err) {
        return { ok: false, errorClass: 'DNS', reason: `${hostname} does not resolve (${(err as { code?: string }).code ?? (err as Error).message})` };
      }
    }
    for (const { address } of addresses) {
      const refusal = addressRefusal(address, options);
      if (refusal) return { ok: false, errorClass: 'ADDRESS_REFUSED', reason: refusal };
    }
    return { ok: true, addresses };
  };
}

/** A lookup that answers the checked addresses and nothing else (net.connect asks for one or, racing families, for all). */
function pinnedLookup(addresses: Array<{ address: string; family: 4 | 6 }>): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL)/;

function errorClassOf(err: unknown, signal: AbortSignal): WebhookErrorClass {
  if (signal.aborted) return 'TIMEOUT';
  const codes: string[] = [];
  for (let e: unknown = err; e && codes.length < 5; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    for (const inner of (e as { errors?: unknown[] }).errors ?? []) {
      const innerCode = (inner as { code?: unknown }).code;
      if (typeof innerCode === 'string') codes.push(innerCode);
    }
  }
  if (codes.some((c) => c === 'ECONNREFUSED')) return 'CONNECTION_REFUSED';
  if (codes.some((c) => TLS_CODES.test(c))) return 'TLS';
  if (codes.some((c) => c === 'UND_ERR_CONNECT_TIMEOUT' || c === 'ETIMEDOUT' || c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT')) return 'TIMEOUT';
  return 'CONNECTION';
}

/** Reads at most RESPONSE_READ_BYTES of the body and drops the rest. */
async function readBounded(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= RESPONSE_READ_BYTES) break;
  }
  body.destroy();
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks).subarray(0, RESPONSE_READ_BYTES));
}

/** Races a promise against the attempt's deadline. */
function beforeDeadline<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const resolveReceiver = createReceiverResolver(options);

  return {
    async send(req: WebhookRequest): Promise<WebhookResponse> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const failed = (errorClass: WebhookErrorClass, statusCode: number | null = null, excerpt: string | null = null): WebhookResponse => ({
        statusCode,
        durationMs: elapsed(),
        errorClass,
        excerpt,
      });
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return failed('INVALID_URL');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return failed('INVALID_URL');
      if (url.protocol === 'http:' && !options.allowHttp) return failed('HTTPS_REQUIRED');

      const signal = AbortSignal.timeout(options.timeoutMs);
      let agent: Agent | null = null;
      try {
        const receiver = await beforeDeadline(resolveReceiver(url.hostname), signal);
        if (!receiver.ok) return failed(receiver.errorClass);
        agent = new Agent({
          connect: { lookup: pinnedLookup(receiver.addresses), rejectUnauthorized: true, timeout: options.timeoutMs },
          // One request per agent: nothing is kept alive past this attempt.
          pipelining: 0,
        });
        const res = await request(url, { method: 'POST', headers: req.headers, body: req.body, dispatcher: agent, signal });
        const text = await beforeDeadline(readBounded(res.body), signal);
        const excerpt = responseExcerpt(text);
        if (res.statusCode >= 200 && res.statusCode < 300) return { statusCode: res.statusCode, durationMs: elapsed(), errorClass: null, excerpt };
        return failed(res.statusCode >= 300 && res.statusCode < 400 ? 'REDIRECT' : 'HTTP_STATUS', res.statusCode, excerpt);
      } catch (err) {
        return failed(errorClassOf(err, signal));
      } finally {
        // destroy, not close: a receiver that never finishes must not hold the attempt open.
        void agent?.destroy().catch(() => undefined);
      }
    },
  };
}
