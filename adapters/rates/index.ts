import type { RateSource, RateSourceCode } from '../../core/rates/rates';
import { createCentralBankSource } from './central-bank';
import { createCommercialBankSource } from './commercial-bank';

export { parseCentralBankDocument } from './central-bank';
export { parseCommercialBankDocument } from './commercial-bank';

export interface RateSourcesConfig {
  centralBankUrl: string;
  commercialBankUrl: string;
  fetchTimeoutMs: number;
}

/** Every source the refresh reads, by code. */
export function createRateSources(config: RateSourcesConfig): Record<RateSourceCode, RateSource> {
  return {
    CBU: createCentralBankSource({ url: config.centralBankUrl, timeoutMs: config.fetchTimeoutMs }),
    BANK: createCommercialBankSource({ url: config.commercialBankUrl, timeoutMs: config.fetchTimeoutMs }),
  };
}
