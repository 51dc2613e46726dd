import type { MigrationContext } from './context';

// Sales and purchase invoices, the first documents. A draft is prepared and edited freely; posting writes
// exactly one journal entry in the same commit (journal_entries.source_type/source_id point back to the
// document, invoices.entry_id forward to the entry), and from then on the document is frozen: the triggers
// below refuse any change to a posted or cancelled invoice's content and lines, and any delete but a draft's,
// whatever the application does. What still moves on a posted invoice is the running `allocated` sum (its
// payments; never above the gross, never below zero) and the cancellation, which records the reversal entry.
//
// SALES numbers are gapless per company and calendar year: document_counters holds the next number of each
// series and year, taken in the posting's transaction (the row is held until commit, a rollback gives the
// number back). A PURCHASE invoice carries the supplier's number, unique per supplier among the invoices
// that are not cancelled (a cancelled one may be entered again). Amounts in the invoice's currency are
// NUMERIC(20, 3) (currencies have at most three decimals); the UZS amounts the posting wrote are NUMERIC(20, 2).

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE journal_entries
      ADD COLUMN source_type text CHECK (source_type IN ('INVOICE', 'PAYMENT')),
      ADD COLUMN source_id uuid,
      ADD CONSTRAINT journal_entries_source_complete CHECK ((source_type IS NULL) = (source_id IS NULL));
    CREATE INDEX journal_entries_source_idx ON journal_entries (tenant_id, source_id) WHERE source_id IS NOT NULL;

    -- The documents' webhook events.
    ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
    ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (type IN ('journal-entry.posted', 'journal-entry.reversed',
      'period-close.completed', 'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated',
      'rates.refreshed', 'webhook.test', 'invoice.posted', 'invoice.cancelled', 'payment.posted', 'payment.cancelled'));

    CREATE TABLE document_counters (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      series text NOT NULL CHECK (series IN ('SALES')),
      year integer NOT NULL CHECK (year BETWEEN 1900 AND 9999),
      next_number integer NOT NULL CHECK (next_number >= 2),
      PRIMARY KEY (tenant_id, legal_entity_id, series, year),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id)
    );

    CREATE TABLE invoices (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('SALES', 'PURCHASE')),
      status text NOT NULL CHECK (status IN ('DRAFT', 'POSTED', 'CANCELLED')),
      number text CHECK (length(number) BETWEEN 1 AND 50 AND number = btrim(number)),
      sequence_year integer,
      sequence_number integer CHECK (sequence_number >= 1),
      invoice_date date NOT NULL,
      due_date date NOT NULL,
      counterparty_id uuid NOT NULL,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      description text CHECK (length(description) BETWEEN 1 AND 500),
      line_count integer NOT NULL CHECK (line_count BETWEEN 1 AND 500),
      total_net numeric(20, 3) NOT NULL CHECK (total_net >= 0),
      total_vat numeric(20, 3) NOT NULL CHECK (total_vat >= 0),
      total_gross numeric(20, 3) NOT NULL CHECK (total_gross > 0),
      allocated numeric(20, 3) NOT NULL DEFAULT 0,
      rate numeric(20, 10) CHECK (rate > 0),
      rate_date date,
      gross_uzs numeric(20, 2),
      vat_uzs numeric(20, 2),
      entry_id uuid,
      posted_at timestamptz,
      posted_by_membership_id uuid,
      cancellation_entry_id uuid,
      cancellation_date date,
      cancellation_reason text CHECK (length(cancellation_reason) BETWEEN 1 AND 500),
      cancellation_request_id uuid,
      version bigint NOT NULL CHECK (version >= 1),
      created_by_membership_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, legal_entity_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id, counterparty_id) REFERENCES counterparties(tenant_id, legal_entity_id, id),
      FOREIGN KEY (tenant_id, entry_id) REFERENCES journal_entries(tenant_id, id),
      FOREIGN KEY (tenant_id, cancellation_entry_id) REFERENCES journal_entries(tenant_id, id),
      CONSTRAINT invoices_due_after_date CHECK (due_date >= invoice_date),
      CONSTRAINT invoices_gross_is_net_plus_vat CHECK (total_gross = total_net + total_vat),
      CONSTRAINT invoices_allocated_within_gross CHECK (allocated >= 0 AND allocated <= total_gross),
      CONSTRAINT invoices_uzs_currency CHECK (currency <> 'UZS' OR (rate IS NULL AND rate_date IS NULL)),
      -- A posted or cancelled invoice has its entry and its UZS amounts; a draft has neither, and no allocation.
      CONSTRAINT invoices_posting_complete CHECK (
        (status = 'DRAFT') = (entry_id IS NULL) AND (status = 'DRAFT') = (posted_at IS NULL)
        AND (status = 'DRAFT') = (gross_uzs IS NULL) AND (status = 'DRAFT') = (vat_uzs IS NULL)
        AND (status <> 'DRAFT' OR allocated = 0)
        AND (status = 'DRAFT' OR currency = 'UZS' OR (rate IS NOT NULL AND rate_date IS NOT NULL))),
      CONSTRAINT invoices_cancellation_complete CHECK (
        (status = 'CANCELLED') = (cancellation_entry_id IS NOT NULL)
        AND num_nulls(cancellation_entry_id, cancellation_date, cancellation_reason, cancellation_request_id) IN (0, 4)
        AND (cancellation_date IS NULL OR cancellation_date >= invoice_date)
        AND (status <> 'CANCELLED' OR allocated = 0)),
      -- SALES: the number is assigned at posting from the company's gapless series of the invoice's year.
      -- PURCHASE: the supplier's number, given with the draft; no series.
      CONSTRAINT invoices_numbering CHECK (
        CASE kind
          WHEN 'SALES' THEN (status = 'DRAFT') = (number IS NULL) AND num_nulls(number, sequence_year, sequence_number) IN (0, 3)
                            AND (sequence_year IS NULL OR sequence_year = extract(year FROM invoice_date))
          ELSE number IS NOT NULL AND sequence_year IS NULL AND sequence_number IS NULL
        END)
    );
    CREATE UNIQUE INDEX invoices_sales_number_key ON invoices (tenant_id, legal_entity_id, sequence_year, sequence_number) WHERE kind = 'SALES' AND sequence_number IS NOT NULL;
    CREATE UNIQUE INDEX invoices_supplier_number_key ON invoices (tenant_id, legal_entity_id, counterparty_id, number) WHERE kind = 'PURCHASE' AND status <> 'CANCELLED';
    CREATE UNIQUE INDEX invoices_entry_key ON invoices (tenant_id, entry_id) WHERE entry_id IS NOT NULL;
    -- The list (by date, then number) and the aging and register reads (open items of a company by side).
    CREATE INDEX invoices_list_idx ON invoices (tenant_id, legal_entity_id, invoice_date DESC, id);
    CREATE INDEX invoices_counterparty_idx ON invoices (tenant_id, legal_entity_id, counterparty_id, invoice_date);
    CREATE INDEX invoices_open_idx ON invoices (tenant_id, legal_entity_id, kind, due_date) WHERE status = 'POSTED';

    CREATE TABLE invoice_lines (
      tenant_id uuid NOT NULL,
      invoice_id uuid NOT NULL,
      line_no integer NOT NULL CHECK (line_no BETWEEN 1 AND 500),
      description text NOT NULL CHECK (length(description) BETWEEN 1 AND 500),
      quantity numeric(18, 3) NOT NULL CHECK (quantity > 0),
      unit_price numeric(24, 4) NOT NULL CHECK (unit_price >= 0),
      account_code text NOT NULL,
      vat_rate numeric(5, 2) CHECK (vat_rate BETWEEN 0 AND 100),
      catalog_code text CHECK (catalog_code ~ '^[0-9]{17}$'),
      net numeric(20, 3) NOT NULL CHECK (net >= 0),
      vat numeric(20, 3) NOT NULL CHECK (vat >= 0),
      gross numeric(20, 3) NOT NULL,
      net_uzs numeric(20, 2),
      vat_uzs numeric(20, 2),
      PRIMARY KEY (tenant_id, invoice_id, line_no),
      FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices(tenant_id, id) ON DELETE CASCADE,
      CONSTRAINT invoice_lines_gross_is_net_plus_vat CHECK (gross = net + vat),
      CONSTRAINT invoice_lines_exempt_has_no_vat CHECK (vat_rate IS NOT NULL OR vat = 0),
      CONSTRAINT invoice_lines_uzs_complete CHECK ((net_uzs IS NULL) = (vat_uzs IS NULL))
    );

    -- A posted invoice is frozen: only its allocations' running sum, its cancellation (POSTED to CANCELLED,
    -- with the reversal) and its version may change. A draft is deleted; nothing else is.
    CREATE FUNCTION invoices_frozen_after_posting() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF OLD.status <> 'DRAFT' THEN
          RAISE EXCEPTION 'invoice % is %: a posted invoice is never deleted', OLD.id, OLD.status USING ERRCODE = 'P0C20';
        END IF;
        RETURN OLD;
      END IF;
      IF OLD.status = 'DRAFT' THEN RETURN NEW; END IF;
      IF NEW.status = 'DRAFT' OR (OLD.status = 'CANCELLED' AND NEW.status <> 'CANCELLED') THEN
        RAISE EXCEPTION 'invoice % is %: it does not go back', OLD.id, OLD.status USING ERRCODE = 'P0C20';
      END IF;
      IF (NEW.kind, NEW.number, NEW.sequence_year, NEW.sequence_number, NEW.invoice_date, NEW.due_date, NEW.counterparty_id, NEW.currency,
          NEW.description, NEW.line_count, NEW.total_net, NEW.total_vat, NEW.total_gross, NEW.rate, NEW.rate_date, NEW.gross_uzs, NEW.vat_uzs,
          NEW.entry_id, NEW.posted_at, NEW.posted_by_membership_id, NEW.legal_entity_id, NEW.created_by_membership_id, NEW.created_at)
         IS DISTINCT FROM
         (OLD.kind, OLD.number, OLD.sequence_year, OLD.sequence_number, OLD.invoice_date, OLD.due_date, OLD.counterparty_id, OLD.currency,
          OLD.description, OLD.line_count, OLD.total_net, OLD.total_vat, OLD.total_gross, OLD.rate, OLD.rate_date, OLD.gross_uzs, OLD.vat_uzs,
          OLD.entry_id, OLD.posted_at, OLD.posted_by_membership_id, OLD.legal_entity_id, OLD.created_by_membership_id, OLD.created_at) THEN
        RAISE EXCEPTION 'invoice % is %: its content is frozen', OLD.id, OLD.status USING ERRCODE = 'P0C20';
      END IF;
      IF OLD.status = 'CANCELLED' AND (NEW.cancellation_entry_id, NEW.cancellation_date, NEW.cancellation_reason, NEW.cancellation_request_id)
                                      IS DISTINCT FROM (OLD.cancellation_entry_id, OLD.cancellation_date, OLD.cancellation_reason, OLD.cancellation_request_id) THEN
        RAISE EXCEPTION 'invoice % is cancelled: its cancellation is frozen', OLD.id USING ERRCODE = 'P0C20';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER invoices_frozen_after_posting BEFORE UPDATE OR DELETE ON invoices
      FOR EACH ROW EXECUTE FUNCTION invoices_frozen_after_posting();

    -- A line changes only while its invoice is a draft (a deleted draft's lines go with it).
    CREATE FUNCTION invoice_lines_of_drafts_only() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
    DECLARE
      parent_status text;
      line record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    BEGIN
      SELECT status INTO parent_status FROM invoices WHERE tenant_id = line.tenant_id AND id = line.invoice_id;
      IF parent_status IS NOT NULL AND parent_status <> 'DRAFT' THEN
        RAISE EXCEPTION 'invoice % is %: its lines are frozen', line.invoice_id, parent_status USING ERRCODE = 'P0C20';
      END IF;
      RETURN line;
    END $$;
    CREATE TRIGGER invoice_lines_of_drafts_only BEFORE INSERT OR UPDATE OR DELETE ON invoice_lines
      FOR EACH ROW EXECUTE FUNCTION invoice_lines_of_drafts_only();

    -- The invoice's totals are its lines' sums, checked at commit (a draft's lines are replaced whole).
    CREATE FUNCTION invoices_totals_are_line_sums() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
    DECLARE
      inv record;
      sums record;
    BEGIN
      SELECT * INTO inv FROM invoices WHERE tenant_id = NEW.tenant_id AND id = NEW.id;
      IF NOT FOUND THEN RETURN NULL; END IF;
      SELECT count(*) AS n, coalesce(sum(net), 0) AS net, coalesce(sum(vat), 0) AS vat,
             sum(net_uzs) AS net_uzs, sum(vat_uzs) AS vat_uzs, count(net_uzs) AS converted
        INTO sums FROM invoice_lines WHERE tenant_id = NEW.tenant_id AND invoice_id = NEW.id;
      IF sums.n <> inv.line_count OR sums.net <> inv.total_net OR sums.vat <> inv.total_vat THEN
        RAISE EXCEPTION 'invoice %: its totals are not the sums of its lines', NEW.id USING ERRCODE = '23514';
      END IF;
      IF inv.status <> 'DRAFT' AND (sums.converted <> sums.n OR sums.vat_uzs <> inv.vat_uzs OR sums.net_uzs + sums.vat_uzs <> inv.gross_uzs) THEN
        RAISE EXCEPTION 'invoice %: its UZS amounts are not the sums of its lines', NEW.id USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER invoices_totals_are_line_sums AFTER INSERT OR UPDATE ON invoices
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION invoices_totals_are_line_sums();

    GRANT SELECT, INSERT, UPDATE ON document_counters TO ${appRole};
    GRANT SELECT, INSERT, UPDATE, DELETE ON invoices, invoice_lines TO ${appRole};
    REVOKE TRUNCATE ON document_counters, invoices, invoice_lines FROM ${appRole};

    ALTER TABLE document_counters ENABLE ROW LEVEL SECURITY;
    ALTER TABLE document_counters FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON document_counters USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    ALTER TABLE invoices ENABLE ROW LEVEL SECURITY;
    ALTER TABLE invoices FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON invoices USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    ALTER TABLE invoice_lines ENABLE ROW LEVEL SECURITY;
    ALTER TABLE invoice_lines FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON invoice_lines USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TABLE IF EXISTS invoice_lines;
    DROP TABLE IF EXISTS invoices;
    DROP TABLE IF EXISTS document_counters;
    DROP FUNCTION IF EXISTS invoice_lines_of_drafts_only();
    DROP FUNCTION IF EXISTS invoices_frozen_after_posting();
    DROP FUNCTION IF EXISTS invoices_totals_are_line_sums();
    DROP INDEX IF EXISTS journal_entries_source_idx;
    ALTER TABLE webhook_events DROP CONSTRAINT IF EXISTS webhook_events_type_check;
    ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (type IN ('journal-entry.posted', 'journal-entry.reversed',
      'period-close.completed', 'period-close.failed', 'revaluation.posted', 'member.joined', 'member.removed', 'member.updated',
      'rates.refreshed', 'webhook.test'));
    ALTER TABLE journal_entries DROP CONSTRAINT IF EXISTS journal_entries_source_complete;
    ALTER TABLE journal_entries DROP COLUMN IF EXISTS source_id, DROP COLUMN IF EXISTS source_type;
  `);
}
