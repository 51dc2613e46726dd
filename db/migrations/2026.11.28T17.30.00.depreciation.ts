import type { MigrationContext } from './context';

// Depreciation as a step of the period close: one system entry of kind DEPRECIATION per company and month,
// dated the month's last day. A close of a quarter (or the first close after an asset was commissioned some
// months earlier) charges every month of its period, so while a close runs its DEPRECIATION entries may be
// dated anywhere in the period it closes (after the last completed close, up to its cut-off); every other
// system entry stays on the close's own date, and an ordinary posting stays after the cut-off.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN ('POSTING', 'REVALUATION', 'YEAR_END_CLOSING', 'DEPRECIATION'));
    ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
    ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (type IN ('journal-entry.posted', 'journal-entry.reversed',
      'period-close.completed', 'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated',
      'rates.refreshed', 'webhook.test', 'invoice.posted', 'invoice.cancelled', 'payment.posted', 'payment.cancelled',
      'bank-statement.imported', 'depreciation.posted'));

    CREATE OR REPLACE FUNCTION ledger_reject_closed_dates() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE cutoff date; closed date; system_entry boolean; in_running_period boolean;
    BEGIN
      SELECT locked_through, last_closed_date INTO cutoff, closed FROM ledger_states
       WHERE tenant_id = NEW.tenant_id AND legal_entity_id = NEW.legal_entity_id;
      IF cutoff IS NOT NULL AND NEW.entry_date <= cutoff THEN
        -- The period a running close closes: after the last completed close, up to the cut-off.
        in_running_period := (closed IS NULL OR cutoff > closed) AND (closed IS NULL OR NEW.entry_date > closed);
        IF TG_TABLE_NAME = 'journal_entries' THEN
          system_entry := NEW.kind <> 'POSTING'
            AND (NEW.entry_date = cutoff OR NEW.kind = 'DEPRECIATION');
        ELSE
          -- A line's entry was checked above; a system line goes where its entry may.
          system_entry := NEW.system_line;
        END IF;
        IF NOT (system_entry AND in_running_period) THEN
          RAISE EXCEPTION 'ledger of % is closed through %: % rejected', NEW.legal_entity_id, cutoff, NEW.entry_date
            USING ERRCODE = 'P0C10', HINT = 'period-closed';
        END IF;
      END IF;
      RETURN NEW;
    END $$;
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE OR REPLACE FUNCTION ledger_reject_closed_dates() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE cutoff date; closed date; system_entry boolean;
    BEGIN
      SELECT locked_through, last_closed_date INTO cutoff, closed FROM ledger_states
       WHERE tenant_id = NEW.tenant_id AND legal_entity_id = NEW.legal_entity_id;
      IF cutoff IS NOT NULL AND NEW.entry_date <= cutoff THEN
        IF TG_TABLE_NAME = 'journal_entries' THEN
          system_entry := NEW.kind <> 'POSTING';
        ELSE
          system_entry := NEW.system_line;
        END IF;
        IF NOT (system_entry AND NEW.entry_date = cutoff AND (closed IS NULL OR cutoff > closed)) THEN
          RAISE EXCEPTION 'ledger of % is closed through %: % rejected', NEW.legal_entity_id, cutoff, NEW.entry_date
            USING ERRCODE = 'P0C10', HINT = 'period-closed';
        END IF;
      END IF;
      RETURN NEW;
    END $$;
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN ('POSTING', 'REVALUATION', 'YEAR_END_CLOSING'));
    DELETE FROM webhook_events WHERE type = 'depreciation.posted';
    ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
    ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (type IN ('journal-entry.posted', 'journal-entry.reversed',
      'period-close.completed', 'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated',
      'rates.refreshed', 'webhook.test', 'invoice.posted', 'invoice.cancelled', 'payment.posted', 'payment.cancelled',
      'bank-statement.imported'));
  `);
}
