import type { MigrationContext } from './context';

// The invoice posting's own statements as functions, so that each connection plans them once and not on every
// posting. pg_stat_statements over the posting benchmark at two connections (per posting, planning + execution):
// the posting checks 0.50 + 0.16 ms, the invoice's update 0.23 + 0.33 ms, its lines' UZS amounts 0.12 + 0.34 ms;
// planning was half of what these statements cost. PL/pgSQL keeps a plan per connection for each statement of
// a function (a plan for the call's values five times, then the generic one when it is no worse), and with
// the tenant columns' statistics (2026.11.29T06.00.00.tenant-statistics) the generic plans are the lookups by
// key. They run as the caller (row-level security applies) and answer what the statements answered:
// - app_invoice_posting_context: the posting context (the company, the requestId, the chart, the
//   counterparty, the stored CBU rate) of the invoice's posting, read from the invoice and its lines, as the
//   ledger's posting context statement (postingContextStatement) answers it for an entry: postingContextOf
//   reads either, and a change to the checks changes both. One function for both, the invoice's calling the
//   entry's, was measured: the invoice's posting lost 5-10 % (208-217 against 222-239 req/s) and the entry's
//   gained nothing visible, so the two stay apart;
// - app_set_invoice_line_uzs: the lines' UZS amounts of a draft being posted, in line order;
// - app_mark_invoice_posted: the posting recorded on the draft, answering its number, version and times (no
//   row when the draft is not one any more or the entry is not there).

const CONTEXT = 'app_invoice_posting_context(uuid, uuid, uuid, uuid, text[], text)';
const LINE_UZS = 'app_set_invoice_line_uzs(uuid, uuid, numeric[], numeric[])';
const MARK = 'app_mark_invoice_posted(uuid, uuid, uuid, text, integer, integer, numeric, date, numeric, numeric, uuid, uuid)';

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE FUNCTION app_invoice_posting_context(p_tenant uuid, p_legal_entity uuid, p_id uuid, p_request_id uuid, p_accounts text[], p_functional text)
      RETURNS TABLE (archived boolean, replayed boolean, codes text[], headers json, subaccounts json, counterparties json, require_counterparty boolean, rates json)
      LANGUAGE plpgsql SECURITY INVOKER SET search_path = public, pg_temp AS
      $$
      #variable_conflict use_column
      DECLARE
        v_codes text[];
        v_counterparty uuid;
        v_currency text;
        v_date date;
      BEGIN
        v_codes := ARRAY(SELECT l.account_code FROM invoice_lines l WHERE l.tenant_id = p_tenant AND l.invoice_id = p_id UNION SELECT unnest(p_accounts));
        SELECT i.counterparty_id, i.currency, i.invoice_date INTO v_counterparty, v_currency, v_date
          FROM invoices i WHERE i.tenant_id = p_tenant AND i.legal_entity_id = p_legal_entity AND i.id = p_id;
        RETURN QUERY SELECT
          (SELECT e.archived_at IS NOT NULL FROM legal_entities e WHERE e.tenant_id = p_tenant AND e.id = p_legal_entity FOR KEY SHARE),
          EXISTS (SELECT 1 FROM journal_entries j WHERE j.tenant_id = p_tenant AND j.legal_entity_id = p_legal_entity AND j.request_id = p_request_id),
          (SELECT array_agg(k.code) FROM (
             SELECT g.code FROM global_accounts g WHERE g.code = ANY(v_codes)
             UNION
             SELECT c.code FROM company_accounts c WHERE c.tenant_id = p_tenant AND c.legal_entity_id = p_legal_entity AND c.custom AND c.code = ANY(v_codes)) k),
          (SELECT json_object_agg(h.parent_code, h.details) FROM (
             SELECT g.parent_code, array_agg(g.code ORDER BY g.code) AS details FROM global_accounts g WHERE g.parent_code = ANY(v_codes) GROUP BY g.parent_code) h),
          -- An invoice's lines name no subaccount.
          CAST(NULL AS json),
          (SELECT json_agg(json_build_object('id', c.id, 'archived', c.archived)) FROM counterparties c
            WHERE c.tenant_id = p_tenant AND c.legal_entity_id = p_legal_entity AND c.id = v_counterparty),
          coalesce((SELECT s.require_counterparty_on_settlements FROM company_accounting_settings s
                     WHERE s.tenant_id = p_tenant AND s.legal_entity_id = p_legal_entity), false),
          (SELECT json_object_agg(r.currency_code, json_build_object('rate', r.rate::text, 'rateDate', to_char(r.effective_date, 'YYYY-MM-DD'))) FROM (
             SELECT x.currency_code, x.rate, x.effective_date FROM exchange_rates x
              WHERE x.source = 'CBU' AND x.currency_code = v_currency AND v_currency <> p_functional AND x.effective_date <= v_date
              ORDER BY x.effective_date DESC LIMIT 1) r);
      END
      $$;

    CREATE FUNCTION app_set_invoice_line_uzs(p_tenant uuid, p_id uuid, p_nets numeric[], p_vats numeric[])
      RETURNS void LANGUAGE plpgsql SECURITY INVOKER SET search_path = public, pg_temp AS
      $$
      BEGIN
        UPDATE invoice_lines l SET net_uzs = u.net_uzs, vat_uzs = u.vat_uzs
          FROM unnest(p_nets, p_vats) WITH ORDINALITY AS u(net_uzs, vat_uzs, line_no)
         WHERE l.tenant_id = p_tenant AND l.invoice_id = p_id AND l.line_no = u.line_no;
      END
      $$;

    CREATE FUNCTION app_mark_invoice_posted(p_tenant uuid, p_legal_entity uuid, p_id uuid, p_number text, p_sequence_year integer, p_sequence_number integer,
                                            p_rate numeric, p_rate_date date, p_gross_uzs numeric, p_vat_uzs numeric, p_entry_id uuid, p_posted_by uuid)
      RETURNS TABLE (number text, version bigint, posted_at timestamptz, updated_at timestamptz)
      LANGUAGE plpgsql SECURITY INVOKER SET search_path = public, pg_temp AS
      $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH posted AS (
            UPDATE invoices i SET status = 'POSTED', number = p_number, sequence_year = p_sequence_year, sequence_number = p_sequence_number,
                   rate = p_rate, rate_date = p_rate_date, gross_uzs = p_gross_uzs, vat_uzs = p_vat_uzs, entry_id = p_entry_id,
                   posted_at = now(), posted_by_membership_id = p_posted_by, version = i.version + 1, updated_at = now()
             WHERE i.tenant_id = p_tenant AND i.legal_entity_id = p_legal_entity AND i.id = p_id AND i.status = 'DRAFT'
               AND EXISTS (SELECT 1 FROM journal_entries e WHERE e.tenant_id = p_tenant AND e.id = p_entry_id)
            RETURNING i.number, i.version, i.posted_at, i.updated_at)
          SELECT * FROM posted;
      END
      $$;

    REVOKE ALL ON FUNCTION ${CONTEXT}, ${LINE_UZS}, ${MARK} FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION ${CONTEXT}, ${LINE_UZS}, ${MARK} TO ${appRole};
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP FUNCTION IF EXISTS ${CONTEXT}; DROP FUNCTION IF EXISTS ${LINE_UZS}; DROP FUNCTION IF EXISTS ${MARK};`);
}
