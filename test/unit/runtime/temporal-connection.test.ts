import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../runtime/config';
import { temporalConnectionOptions } from '../../../adapters/temporal/connection';

const config = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'development', ...env }).temporal;

describe('the Temporal connection from configuration', () => {
  test('a local server: plain gRPC, no key', () => {
    expect(temporalConnectionOptions(config({ TEMPORAL_ADDRESS: '127.0.0.1:7233' }))).toEqual({ address: '127.0.0.1:7233' });
  });

  test('Temporal Cloud with an API key: TLS with the system\'s roots, and the key', () => {
    const options = temporalConnectionOptions(config({ TEMPORAL_ADDRESS: 'eu-west-1.aws.api.temporal.io:7233', TEMPORAL_API_KEY: 'cloud-key' }));
    expect(options).toEqual({ address: 'eu-west-1.aws.api.temporal.io:7233', tls: {}, apiKey: 'cloud-key' });
  });

  test('a managed cluster with mTLS: the client pair, a private CA and a server name, read from their files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'temporal-tls-'));
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const options = temporalConnectionOptions(
      config({
        TEMPORAL_ADDRESS: 'temporal.internal:7233',
        TEMPORAL_TLS_CA_FILE: file('ca.pem', 'CA'),
        TEMPORAL_TLS_CERT_FILE: file('client.pem', 'CERT'),
        TEMPORAL_TLS_KEY_FILE: file('client.key', 'KEY'),
        TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
      }),
    );
    expect(options.address).toBe('temporal.internal:7233');
    expect(options.apiKey).toBeUndefined();
    expect(Buffer.from(options.tls!.serverRootCACertificate!).toString()).toBe('CA');
    expect(Buffer.from(options.tls!.clientCertPair!.crt).toString()).toBe('CERT');
    expect(Buffer.from(options.tls!.clientCertPair!.key).toString()).toBe('KEY');
    expect(options.tls!.serverNameOverride).toBe('frontend.temporal.internal');
  });

  test('TEMPORAL_TLS=true alone: TLS with the system\'s roots (e.g. a cluster behind a public certificate)', () => {
    expect(temporalConnectionOptions(config({ TEMPORAL_TLS: 'true' }))).toEqual({ address: '127.0.0.1:7233', tls: {} });
  });
});
