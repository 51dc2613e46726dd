// The rate refresh's contracts: refreshRatesWorkflow, which the `rates-refresh` Schedule runs (and refreshRates,
// POST /rates/refresh, through the same Schedule), and its activities. Rates travel as decimal strings, never
// floats.
import type { RateSourceCode, SourcedRate } from '../core/rates/rates';

export const REFRESH_RATES_WORKFLOW = 'refreshRatesWorkflow';

/** What one source's activity read: its rates and how many rows it left out. */
export interface FetchedRates {
  source: RateSourceCode;
  rates: SourcedRate[];
  skippedRows: number;
  /** When the document was read (ISO 8601): the source's last success once stored. */
  fetchedAt: string;
}

/** One source's outcome in a run: what it read, or why it read nothing. */
export type SourceOutcome = { source: RateSourceCode; ok: true; fetched: FetchedRates } | { source: RateSourceCode; ok: false; reason: string };

export interface SourceSummary {
  source: RateSourceCode;
  status: 'STORED' | 'FAILED';
  /** STORED: rates read, rows left out, rows added or corrected. FAILED: the reason. */
  rates?: number;
  skippedRows?: number;
  changed?: number;
  reason?: string;
}

export interface RefreshRatesResult {
  sources: SourceSummary[];
}

export interface RefreshRatesActivities {
  /** Reads the Central Bank of Uzbekistan's list; records the attempt first. */
  fetchCentralBankRates(): Promise<FetchedRates>;
  /** Reads the commercial bank's buy and sell prices; records the attempt first. */
  fetchCommercialBankRates(): Promise<FetchedRates>;
  /** Stores every source's outcome in one transaction: rates of those that answered, reasons of those that did not. */
  storeRates(outcomes: SourceOutcome[]): Promise<SourceSummary[]>;
}
