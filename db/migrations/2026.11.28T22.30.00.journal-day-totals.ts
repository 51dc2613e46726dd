import type { MigrationContext } from './context';

// Two reads grew with a company's whole journal: the cumulative totals (trial balance, statements, the overview)
// summed every line after the last close, and the aging found the settlement accounts' manual lines through
// every line or every manual entry. Both now read what the database keeps beside the lines as they are written:
//
// - `journal_day_totals`: per company, day, account, subaccount, currency and the kind of document that posted
//   the lines (`source_type`, null for entries made by hand or by the system), the lines' debit, credit,
//   foreign debit and credit, and count; the year-end closing entry's lines apart (`year_end`), so the months'
//   results leave them out and the VAT of invoices is read without reading entries. A statement trigger on journal_lines adds each statement's lines in
//   the same transaction, so the totals are the lines' sums at every snapshot a reader can see. The journal is
//   append-only, so the totals only ever grow by what is inserted. Postings of one company already wait for
//   each other on its ledger row (gapless numbers), so the rows they add to add no new wait. The function is
//   the definer's: the application reads the totals and cannot write them. The sums are unbounded NUMERIC: a
//   day may hold any number of entries (a close's snapshot is what bounds the totals, and fails the close).
// - `journal_lines.source_type`: the kind of document that posted the line's entry, copied from the entry by a
//   row trigger; the lines no document posted are a partial index by account and date, which the aging reads
//   alone.
// - A partial index of draft invoices, which the overview counts.

/** The foreign debit (credit) turnover of a group of lines `a`: null for UZS lines. */
const FOREIGN_DEBIT = 'CASE WHEN a.currency IS NULL THEN NULL ELSE sum(CASE WHEN a.debit > 0 THEN a.currency_amount ELSE 0 END) END';
const FOREIGN_CREDIT = 'CASE WHEN a.currency IS NULL THEN NULL ELSE sum(CASE WHEN a.credit > 0 THEN a.currency_amount ELSE 0 END) END';

export async function up({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE journal_day_totals (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      entry_date date NOT NULL,
      account_code text NOT NULL,
      subaccount_id uuid,
      currency text,
      source_type text,
      year_end boolean NOT NULL,
      debit numeric NOT NULL,
      credit numeric NOT NULL,
      currency_debit numeric,
      currency_credit numeric,
      line_count bigint NOT NULL,
      CHECK (num_nulls(currency, currency_debit, currency_credit) IN (0, 3))
    );
    CREATE UNIQUE INDEX journal_day_totals_key
      ON journal_day_totals (tenant_id, legal_entity_id, entry_date, account_code, subaccount_id, currency, source_type, year_end) NULLS NOT DISTINCT;

    -- The owner runs migrations and is bound by row-level security too: it is lifted for the backfills.
    ALTER TABLE journal_lines NO FORCE ROW LEVEL SECURITY;
    ALTER TABLE journal_entries NO FORCE ROW LEVEL SECURITY;
    INSERT INTO journal_day_totals (tenant_id, legal_entity_id, entry_date, account_code, subaccount_id, currency, source_type, year_end,
                                    debit, credit, currency_debit, currency_credit, line_count)
    SELECT l.tenant_id, l.legal_entity_id, l.entry_date, l.account_code, l.subaccount_id, l.currency, e.source_type, e.kind = 'YEAR_END_CLOSING',
           sum(l.debit), sum(l.credit), ${FOREIGN_DEBIT.replaceAll('a.', 'l.')}, ${FOREIGN_CREDIT.replaceAll('a.', 'l.')}, count(*)
      FROM journal_lines l JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

    CREATE FUNCTION journal_lines_add_day_totals() RETURNS trigger
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
      INSERT INTO journal_day_totals AS t (tenant_id, legal_entity_id, entry_date, account_code, subaccount_id, currency, source_type, year_end,
                                           debit, credit, currency_debit, currency_credit, line_count)
      SELECT a.tenant_id, a.legal_entity_id, a.entry_date, a.account_code, a.subaccount_id, a.currency, a.source_type,
             a.system_line AND EXISTS (SELECT 1 FROM journal_entries e WHERE e.tenant_id = a.tenant_id AND e.id = a.entry_id AND e.kind = 'YEAR_END_CLOSING'),
             sum(a.debit), sum(a.credit), ${FOREIGN_DEBIT}, ${FOREIGN_CREDIT}, count(*)
        FROM added a
       GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
      ON CONFLICT (tenant_id, legal_entity_id, entry_date, account_code, subaccount_id, currency, source_type, year_end)
      DO UPDATE SET debit = t.debit + excluded.debit, credit = t.credit + excluded.credit,
                    currency_debit = t.currency_debit + excluded.currency_debit, currency_credit = t.currency_credit + excluded.currency_credit,
                    line_count = t.line_count + excluded.line_count;
      RETURN NULL;
    END $$;
    GRANT SELECT, INSERT, UPDATE ON journal_day_totals TO ${definerRole};
    GRANT SELECT ON journal_entries TO ${definerRole};
    ALTER FUNCTION journal_lines_add_day_totals() OWNER TO ${definerRole};
    CREATE TRIGGER journal_lines_day_totals AFTER INSERT ON journal_lines
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_add_day_totals();

    GRANT SELECT ON journal_day_totals TO ${appRole};
    REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON journal_day_totals FROM ${appRole};
    ALTER TABLE journal_day_totals ENABLE ROW LEVEL SECURITY;
    ALTER TABLE journal_day_totals FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON journal_day_totals
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

    ALTER TABLE journal_lines ADD COLUMN source_type text;
    ALTER TABLE journal_lines DISABLE TRIGGER journal_lines_append_only;
    UPDATE journal_lines l SET source_type = e.source_type
      FROM journal_entries e WHERE e.tenant_id = l.tenant_id AND e.id = l.entry_id AND e.source_type IS NOT NULL;
    ALTER TABLE journal_lines ENABLE TRIGGER journal_lines_append_only;
    ALTER TABLE journal_lines FORCE ROW LEVEL SECURITY;
    ALTER TABLE journal_entries FORCE ROW LEVEL SECURITY;

    CREATE FUNCTION journal_lines_copy_source() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.source_type := (SELECT e.source_type FROM journal_entries e WHERE e.tenant_id = NEW.tenant_id AND e.id = NEW.entry_id);
      RETURN NEW;
    END $$;
    CREATE TRIGGER journal_lines_source_type BEFORE INSERT ON journal_lines
      FOR EACH ROW EXECUTE FUNCTION journal_lines_copy_source();

    CREATE INDEX journal_lines_manual_idx ON journal_lines (tenant_id, legal_entity_id, account_code, entry_date)
      INCLUDE (counterparty_id, debit, credit, currency, currency_amount) WHERE source_type IS NULL;
    DROP INDEX journal_entries_manual_idx;
    CREATE INDEX invoices_draft_idx ON invoices (tenant_id, legal_entity_id) WHERE status = 'DRAFT';
  `);
}

export async function down({ sql, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    DROP INDEX IF EXISTS invoices_draft_idx;
    CREATE INDEX IF NOT EXISTS journal_entries_manual_idx ON journal_entries (tenant_id, legal_entity_id, entry_date) INCLUDE (id) WHERE source_type IS NULL;
    DROP INDEX IF EXISTS journal_lines_manual_idx;
    DROP TRIGGER IF EXISTS journal_lines_source_type ON journal_lines;
    DROP FUNCTION IF EXISTS journal_lines_copy_source();
    ALTER TABLE journal_lines DROP COLUMN IF EXISTS source_type;
    DROP TRIGGER IF EXISTS journal_lines_day_totals ON journal_lines;
    DROP FUNCTION IF EXISTS journal_lines_add_day_totals();
    REVOKE SELECT ON journal_entries FROM ${definerRole};
    DROP TABLE IF EXISTS journal_day_totals;
  `);
}
