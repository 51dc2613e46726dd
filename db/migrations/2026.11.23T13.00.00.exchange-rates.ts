import type { MigrationContext } from './context';

// Exchange rates, shared by every workspace (no tenant column: the central bank's rate is the same for
// all). `exchange_rates` keeps every publication by its effective day, so a past day's rate can be read
// later; the application role may add and correct rows but never delete them. `rate_sources` holds each
// source's refresh state: the last attempt, the last success and why the last attempt failed.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE rate_sources (
      code text PRIMARY KEY CHECK (code IN ('CBU', 'BANK')),
      last_attempt_at timestamptz,
      last_success_at timestamptz,
      last_error text CHECK (length(last_error) <= 1000)
    );
    INSERT INTO rate_sources (code) VALUES ('CBU'), ('BANK');

    -- 15 integer and 10 decimal digits: the scale keeps "0.77 UZS per IDR" and Rate/Nominal quotients whole.
    CREATE TABLE exchange_rates (
      source text NOT NULL REFERENCES rate_sources (code),
      effective_date date NOT NULL,
      currency_code text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$' AND currency_code <> 'UZS'),
      currency_name text NOT NULL CHECK (length(currency_name) BETWEEN 1 AND 100),
      rate numeric(25, 10) CHECK (rate > 0),
      buy_rate numeric(25, 10) CHECK (buy_rate > 0),
      sell_rate numeric(25, 10) CHECK (sell_rate >= buy_rate),
      source_updated_at timestamptz,
      fetched_at timestamptz NOT NULL,
      PRIMARY KEY (source, effective_date, currency_code),
      -- The central bank sets one official rate; a commercial bank buys and sells.
      CHECK (source <> 'CBU' OR (rate IS NOT NULL AND buy_rate IS NULL AND sell_rate IS NULL)),
      CHECK (source <> 'BANK' OR (rate IS NULL AND buy_rate IS NOT NULL AND sell_rate IS NOT NULL))
    );
    REVOKE DELETE, TRUNCATE ON exchange_rates FROM ${appRole};
    REVOKE INSERT, DELETE, TRUNCATE ON rate_sources FROM ${appRole};
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP TABLE IF EXISTS exchange_rates; DROP TABLE IF EXISTS rate_sources;`);
}
