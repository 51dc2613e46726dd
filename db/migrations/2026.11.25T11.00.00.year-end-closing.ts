import type { MigrationContext } from './context';

// Year-end closing: the close of a fiscal year's last day posts the closing entries (income and expense
// accounts into 9910 "Final financial result", 9910 into 8710 "Retained earnings of the reporting period") as
// system entries of their own kind, dated on the close date like the close's revaluation.
//
// What the revaluation's rules said of its entries now holds for every system entry a close or a revaluation
// writes (kind REVALUATION or YEAR_END_CLOSING): its lines are marked (`system_line`, the revaluation's flag
// renamed), it may be dated on a running close's date, and it may have more than 500 lines. An ordinary
// posting (kind POSTING) has no marked line, and a system entry has no unmarked one, checked at commit.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN ('POSTING', 'REVALUATION', 'YEAR_END_CLOSING'));
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_line_count_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_line_count_check
      CHECK (line_count >= 2 AND (line_count <= 500 OR kind <> 'POSTING'));
    ALTER TABLE journal_lines RENAME COLUMN revaluation TO system_line;

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
        -- A running close (cut-off above the last completed close) posts its own entries on its date.
        IF NOT (system_entry AND NEW.entry_date = cutoff AND (closed IS NULL OR cutoff > closed)) THEN
          RAISE EXCEPTION 'ledger of % is closed through %: % rejected', NEW.legal_entity_id, cutoff, NEW.entry_date
            USING ERRCODE = 'P0C10', HINT = 'period-closed';
        END IF;
      END IF;
      RETURN NEW;
    END $$;

    CREATE OR REPLACE FUNCTION ledger_check_entry_lines() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE d numeric; c numeric; n int; marked int;
    BEGIN
      SELECT coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*), count(*) FILTER (WHERE system_line)
        INTO d, c, n, marked FROM journal_lines
       WHERE tenant_id = NEW.tenant_id AND entry_id = NEW.id;
      IF d <> NEW.total_debit OR c <> NEW.total_credit OR n <> NEW.line_count THEN
        RAISE EXCEPTION 'journal entry % does not balance: lines % / %, % lines', NEW.id, d, c, n
          USING ERRCODE = 'P0C11', HINT = 'unbalanced-entry';
      END IF;
      IF marked <> (CASE WHEN NEW.kind <> 'POSTING' THEN n ELSE 0 END) THEN
        RAISE EXCEPTION 'journal entry % mixes system lines with a % entry', NEW.id, NEW.kind
          USING ERRCODE = 'P0C13', HINT = 'system-lines';
      END IF;
      RETURN NULL;
    END $$;
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_lines RENAME COLUMN system_line TO revaluation;
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_line_count_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_line_count_check CHECK (line_count >= 2 AND (line_count <= 500 OR kind = 'REVALUATION'));
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN ('POSTING', 'REVALUATION'));
  `);
}
