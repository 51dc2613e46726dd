// Webhook delivery against a running API and worker (`npm start`): a receiver on 127.0.0.1 in this process,
// one endpoint subscribed to journal-entry.posted, then
//   1. latency: BENCH_LATENCY_EVENTS entries posted one after another, each timed from the posting's 201
//      (its commit) to the signed delivery reaching the receiver, p50/p99;
//   2. throughput: BENCH_EVENTS entries posted by BENCH_CONCURRENCY clients at once, deliveries per second
//      from the first 201 to the last delivery, and the posting rate beside it.
//   npm run bench:webhooks   (BENCH_EVENTS=1000, BENCH_LATENCY_EVENTS=50, BENCH_CONCURRENCY=16)
// Every delivery is verified with standardwebhooks as a receiver would; a failed verification is counted.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { BASE, post, percentile, registerWorkspace, requireRunningApi } from './harness';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 50);
const CLIENTS = Number(process.env.BENCH_CONCURRENCY ?? 16);

interface Received {
  at: number;
  entryId: string;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function main(): Promise<void> {
  await requireRunningApi();
  let verifier: Webhook | null = null;
  let unverified = 0;
  const received = new Map<string, Received>();
  const waiting = new Map<string, () => void>();
  const receiver = createServer((req, res) => {
    void readBody(req).then((body) => {
      try {
        verifier!.verify(body, req.headers as Record<string, string>);
        const event = JSON.parse(body) as { type: string; data: { entryId?: string; id?: string } };
        const entryId = event.data.entryId ?? event.data.id ?? '';
        if (!received.has(entryId)) received.set(entryId, { at: performance.now(), entryId });
        waiting.get(entryId)?.();
      } catch {
        unverified += 1;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const { accessToken } = await registerWorkspace();
  const auth = { authorization: `Bearer ${accessToken}` };
  const me = (await (await fetch(`${BASE}/api/v1/me`, { headers: auth })).json()) as { company: { id: string } };
  const created = await post('/api/v1/webhooks/endpoints', { url: receiverUrl, eventTypes: ['journal-entry.posted'] }, auth);
  if (created.status !== 201) throw new Error(`createWebhookEndpoint answered ${created.status}: ${await created.text()}`);
  verifier = new Webhook(((await created.json()) as { secret: string }).secret);

  const postEntry = async (): Promise<{ id: string; committedAt: number }> => {
    const res = await post(
      `/api/v1/ledger/${me.company.id}/entries`,
      {
        requestId: randomUUID(),
        entryDate: new Date().toISOString().slice(0, 10),
        description: 'Webhook benchmark',
        lines: [
          { accountCode: '5110', debit: '100.00', credit: '0' },
          { accountCode: '9010', debit: '0', credit: '100.00' },
        ],
      },
      auth,
    );
    const committedAt = performance.now();
    if (res.status !== 201) throw new Error(`postJournalEntry answered ${res.status}: ${await res.text()}`);
    return { id: ((await res.json()) as { id: string }).id, committedAt };
  };
  const deliveredAt = (entryId: string): Promise<number> =>
    received.has(entryId)
      ? Promise.resolve(received.get(entryId)!.at)
      : new Promise((resolve) => waiting.set(entryId, () => resolve(received.get(entryId)!.at)));

  // 1. Latency: one entry at a time, commit → receiver.
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const { id, committedAt } = await postEntry();
    latencies.push((await deliveredAt(id)) - committedAt);
  }
  latencies.sort((a, b) => a - b);

  // 2. Throughput: EVENTS entries from CLIENTS clients at once; the deliveries follow as the worker sends them.
  const ids: string[] = [];
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < EVENTS) {
        next += 1;
        ids.push((await postEntry()).id);
      }
    }),
  );
  const posted = performance.now();
  const last = Math.max(...(await Promise.all(ids.map(deliveredAt))));
  receiver.close();

  console.log(`\nWebhook benchmark against ${BASE}: one endpoint on ${receiverUrl}, journal-entry.posted, Node ${process.version}\n`);
  console.table([
    {
      scenario: `latency, ${LATENCY_EVENTS} entries one at a time (201 → receiver)`,
      p50_ms: Math.round(percentile(latencies, 50)),
      p99_ms: Math.round(percentile(latencies, 99)),
      max_ms: Math.round(latencies[latencies.length - 1] ?? NaN),
    },
  ]);
  console.table([
    {
      scenario: `throughput, ${EVENTS} entries from ${CLIENTS} clients`,
      'entries posted/s': Math.round((EVENTS / (posted - start)) * 1000),
      'deliveries/s (first post → last delivery)': Math.round((EVENTS / (last - start)) * 1000),
      'last delivery after last post (ms)': Math.round(last - posted),
      'failed verifications': unverified,
    },
  ]);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
