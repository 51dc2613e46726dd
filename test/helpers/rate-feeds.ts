import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

// A local stand-in for the banks' feeds: serves recorded documents from test/fixtures/rates, or a status,
// or garbage, per path; counts requests; and can hold answers until the test releases them.

export interface FeedAnswer {
  status: number;
  body: string;
  contentType?: string;
}

export const fixture = (name: string): FeedAnswer => ({
  status: 200,
  body: readFileSync(path.join(__dirname, '..', 'fixtures', 'rates', name), 'utf8'),
  contentType: 'application/json; charset=utf-8',
});

export interface RateFeeds {
  url(feed: 'cbu' | 'bank'): string;
  serve(feed: 'cbu' | 'bank', answer: FeedAnswer): void;
  hits(feed: 'cbu' | 'bank'): number;
  /** Holds every answer until the returned function is called. */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startRateFeeds(): Promise<RateFeeds> {
  const answers = new Map<string, FeedAnswer>();
  const counts = new Map<string, number>();
  let gate: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    const feed = (req.url ?? '').replace(/^\//, '').split('?')[0]!;
    counts.set(feed, (counts.get(feed) ?? 0) + 1);
    void gate.then(() => {
      const answer = answers.get(feed) ?? { status: 404, body: 'not found' };
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (feed) => `http://127.0.0.1:${port}/${feed}`,
    serve: (feed, answer) => answers.set(feed, answer),
    hits: (feed) => counts.get(feed) ?? 0,
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => release();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
