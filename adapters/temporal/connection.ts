import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import type { Config } from '../../runtime/config';

// How every process reaches Temporal: the same options for the client (API, worker's schedules and relay)
// and the worker's native connection. A local server takes plain gRPC; a managed cluster takes mTLS
// (client certificate and key, perhaps a private CA and a server name); Temporal Cloud takes an API key
// over TLS (or mTLS).

export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
}

export function temporalConnectionOptions(temporal: Config['temporal']): TemporalConnectionOptions {
  const options: TemporalConnectionOptions = { address: temporal.address };
  if (temporal.tls) {
    const tls: TLSConfig = {};
    if (temporal.tls.caFile) tls.serverRootCACertificate = readFileSync(temporal.tls.caFile);
    if (temporal.tls.certFile && temporal.tls.keyFile) {
      tls.clientCertPair = { crt: readFileSync(temporal.tls.certFile), key: readFileSync(temporal.tls.keyFile) };
    }
    if (temporal.tls.serverName) tls.serverNameOverride = temporal.tls.serverName;
    options.tls = tls;
  }
  if (temporal.apiKey) options.apiKey = temporal.apiKey;
  return options;
}
