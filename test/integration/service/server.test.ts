// The API process as `node dist/api/server.js` starts it: startServer binds the API and its metrics listener
// on LISTEN_HOST (loopback unless configured), each on its own port.
import { networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';
import { startServer, type RunningServer } from '../../../api/server';
import { createLogger } from '../../../runtime/logger';
import { loadTestConfig } from '../../helpers/stack';

const servers: RunningServer[] = [];
async function start(overrides: Record<string, string>): Promise<RunningServer> {
  // PORT and METRICS_PORT 0: any free ports, so test files running at once do not collide.
  const running = await startServer(loadTestConfig({ PORT: '0', METRICS_PORT: '0', ...overrides }), createLogger('silent'));
  servers.push(running);
  return running;
}
afterAll(async () => {
  await Promise.all(servers.map((running) => running.stop()));
});

const addressOf = (running: RunningServer) => ({
  api: (running.server.address() as AddressInfo).address,
  metrics: (running.metricsServer.address() as AddressInfo).address,
});

/** This machine's addresses other than loopback: what the network reaches. */
const externalAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address);

describe('startServer (the API process)', () => {
  test('when LISTEN_HOST is not set, then the API and its metrics listener listen on 127.0.0.1 only', async () => {
    const running = await start({ LISTEN_HOST: '' });
    expect(addressOf(running)).toEqual({ api: '127.0.0.1', metrics: '127.0.0.1' });
    expect(running.metricsPort).not.toBe(running.port);
    await expect(fetch(`http://127.0.0.1:${running.port}/healthz`).then((res) => res.status)).resolves.toBe(200);
    // From another address of this machine (as from the network) nothing answers: not the API, not the outbox.
    for (const address of externalAddresses()) {
      for (const port of [running.port, running.metricsPort]) {
        const outcome = await fetch(`http://${address}:${port}/dev/mail?to=someone@example.com`).then(
          (res) => `answered ${res.status}`,
          (err: Error & { cause?: { code?: string } }) => err.cause?.code,
        );
        expect({ address, port, outcome }).toEqual({ address, port, outcome: 'ECONNREFUSED' });
      }
    }
  });

  test('when LISTEN_HOST is set, then both listeners bind that address', async () => {
    const running = await start({ LISTEN_HOST: '127.0.0.2' });
    expect(addressOf(running)).toEqual({ api: '127.0.0.2', metrics: '127.0.0.2' });
    await expect(fetch(`http://127.0.0.2:${running.port}/healthz`).then((res) => res.status)).resolves.toBe(200);
  });

  test('when /metrics is asked, then the API\'s port answers the usual 404 and the metrics port the Prometheus text', async () => {
    const running = await start({ LISTEN_HOST: '' });
    await fetch(`http://127.0.0.1:${running.port}/healthz`);
    const onApi = await fetch(`http://127.0.0.1:${running.port}/metrics`);
    expect(onApi.status).toBe(404);
    expect(onApi.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await onApi.json()) as { type: string }).type).toBe('/problems/not-found');

    const onMetrics = await fetch(`http://127.0.0.1:${running.metricsPort}/metrics`);
    expect(onMetrics.status).toBe(200);
    expect(onMetrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await onMetrics.text();
    // The same process's metrics: the request to the API's port above is counted.
    expect(text).toMatch(/^http_request_duration_seconds_count\{operation="getHealth",method="GET",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
  });
});
