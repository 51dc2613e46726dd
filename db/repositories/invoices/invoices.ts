import { selectBatch, selectRows, type Db, type Statement, type Tx } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { InvoiceKind, InvoiceLine, TaxRegime } from '../../../core/invoices/invoices';

// Invoices and their lines. Serves listInvoices, createInvoice, getInvoice, updateInvoice, deleteInvoice,
// postInvoice (the gapless SALES number, the posted amounts) and cancelInvoice. Raw SQL throughout: a draft's
// lines are replaced whole with one unnest insert, the list filters on a derived status, and the posting's
// writes are guarded by the status they expect (the triggers of migration 2026.11.26T14.00.00.invoices
// refuse any change to a posted invoice's content whatever is sent). Amounts come back as NUMERIC text.

export type StoredStatus = 'DRAFT' | 'POSTED' | 'CANCELLED';

export interface InvoiceRow {
  id: string;
  kind: InvoiceKind;
  status: StoredStatus;
  number: string | null;
  invoice_date: string;
  due_date: string;
  counterparty_id: string;
  counterparty_name: string;
  currency: string;
  description: string | null;
  total_net: string;
  total_vat: string;
  total_gross: string;
  allocated: string;
  rate: string | null;
  rate_date: string | null;
  gross_uzs: string | null;
  vat_uzs: string | null;
  entry_id: string | null;
  posted_at: Date | null;
  cancellation_entry_id: string | null;
  cancellation_date: string | null;
  cancellation_reason: string | null;
  cancellation_request_id: string | null;
  version: string;
  created_at: Date;
  updated_at: Date;
}

export interface InvoiceLineRow {
  invoice_id: string;
  line_no: number;
  description: string;
  quantity: string;
  unit_price: string;
  account_code: string;
  vat_rate: string | null;
  catalog_code: string | null;
  net: string;
  vat: string;
  gross: string;
  net_uzs: string | null;
  vat_uzs: string | null;
}

const COLUMNS = `i.id, i.kind, i.status, i.number, to_char(i.invoice_date, 'YYYY-MM-DD') AS invoice_date, to_char(i.due_date, 'YYYY-MM-DD') AS due_date,
  i.counterparty_id, c.name AS counterparty_name, i.currency, i.description, i.total_net, i.total_vat, i.total_gross, i.allocated,
  i.rate, to_char(i.rate_date, 'YYYY-MM-DD') AS rate_date, i.gross_uzs, i.vat_uzs, i.entry_id, i.posted_at,
  i.cancellation_entry_id, to_char(i.cancellation_date, 'YYYY-MM-DD') AS cancellation_date, i.cancellation_reason, i.cancellation_request_id,
  i.version, i.created_at, i.updated_at`;
const FROM = 'invoices i JOIN counterparties c ON c.tenant_id = i.tenant_id AND c.id = i.counterparty_id';

const LINE_COLUMNS = `invoice_id, line_no, description, quantity::text AS quantity, unit_price::text AS unit_price, account_code,
  vat_rate::text AS vat_rate, catalog_code, net, vat, gross, net_uzs, vat_uzs`;

/** The invoice, with its counterparty's name; `lock` holds the invoice row FOR UPDATE until the transaction ends. */
export function findInvoiceStatement(scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Statement {
  return {
    sql: `SELECT ${COLUMNS} FROM ${FROM} WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.id = :id${options.lock ? ' FOR UPDATE OF i' : ''}`,
    replacements: { ...scope, id },
  };
}

export async function findInvoice(tx: Db, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<InvoiceRow | null> {
  const statement = findInvoiceStatement(scope, id, options);
  const [row] = await selectRows<InvoiceRow>(tx, statement.sql, statement.replacements);
  return row ?? null;
}

/**
 * The lines of the invoices `ids`, in their order, each invoice's looked up by its key. The subquery per id is
 * kept apart (OFFSET 0) so the planner cannot turn it round: for a tenant its statistics have not met yet it
 * expects one line, and read the tenant's every line to filter them (`invoice_id = ANY(ids)` did the same):
 * 4–8 ms for one invoice of a tenant with 11,000 lines, 0.2 ms by key.
 */
export function invoiceLinesStatement(scope: CompanyScope, ids: string[]): Statement {
  return {
    sql: `SELECT l.* FROM unnest(CAST(:ids AS uuid[])) AS wanted(id)
           CROSS JOIN LATERAL (SELECT ${LINE_COLUMNS} FROM invoice_lines WHERE tenant_id = :tenantId AND invoice_id = wanted.id OFFSET 0) l
           ORDER BY l.invoice_id, l.line_no`,
    replacements: { tenantId: scope.tenantId, ids: `{${ids.join(',')}}` },
  };
}

export async function invoiceLinesOf(tx: Db, scope: CompanyScope, ids: string[]): Promise<InvoiceLineRow[]> {
  if (ids.length === 0) return [];
  const statement = invoiceLinesStatement(scope, ids);
  return selectRows<InvoiceLineRow>(tx, statement.sql, statement.replacements);
}

export interface InvoiceFilter {
  kind?: InvoiceKind;
  status?: StoredStatus | 'PAID';
  counterpartyId?: string;
  dateFrom?: string;
  dateTo?: string;
  q: string;
  limit: number;
  offset: number;
}

/** A page of the company's invoices, newest first (date, then id). POSTED lists those with something outstanding, PAID the rest. */
export async function listInvoices(tx: Db, scope: CompanyScope, filter: InvoiceFilter): Promise<{ rows: InvoiceRow[]; total: number }> {
  const conditions = ['i.tenant_id = :tenantId', 'i.legal_entity_id = :legalEntityId'];
  if (filter.kind) conditions.push('i.kind = :kind');
  if (filter.status === 'PAID') conditions.push("i.status = 'POSTED' AND i.allocated = i.total_gross");
  else if (filter.status === 'POSTED') conditions.push("i.status = 'POSTED' AND i.allocated < i.total_gross");
  else if (filter.status) conditions.push('i.status = :status');
  if (filter.counterpartyId) conditions.push('i.counterparty_id = :counterpartyId');
  if (filter.dateFrom) conditions.push('i.invoice_date >= :dateFrom');
  if (filter.dateTo) conditions.push('i.invoice_date <= :dateTo');
  if (filter.q !== '') conditions.push("i.number LIKE :prefix ESCAPE '\\'");
  const where = conditions.join(' AND ');
  const replacements = { ...scope, ...filter, prefix: `${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM invoices i WHERE ${where}`, replacements);
  const rows = await selectRows<InvoiceRow>(tx, `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY i.invoice_date DESC, i.id LIMIT :limit OFFSET :offset`, replacements);
  return { rows, total: Number(counted!.total) };
}

/** What a draft is checked against: the company's VAT setting and the counterparty (one round trip with the chart's check). */
export interface DraftContext {
  vat: { taxRegime: TaxRegime | null; vatRate: string | null };
  counterparty: { archived: boolean; paymentTermsDays: number } | null;
}

export function draftContextStatement(scope: CompanyScope, counterpartyId: string): Statement {
  return {
    sql: `SELECT (SELECT json_build_object('taxRegime', tax_regime, 'vatRate', vat_rate::text) FROM company_accounting_settings
                   WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId) AS vat,
                 (SELECT json_build_object('archived', archived, 'paymentTermsDays', payment_terms_days) FROM counterparties
                   WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :counterpartyId) AS counterparty`,
    replacements: { ...scope, counterpartyId },
  };
}

export function draftContextOf(row: Record<string, unknown>): DraftContext {
  const r = row as { vat: DraftContext['vat'] | null; counterparty: DraftContext['counterparty'] };
  return { vat: r.vat ?? { taxRegime: null, vatRate: null }, counterparty: r.counterparty };
}

/** A draft's content as written. */
export interface DraftContent {
  number: string | null;
  invoiceDate: string;
  dueDate: string;
  counterpartyId: string;
  currency: string;
  description: string | null;
  totalNet: string;
  totalVat: string;
  totalGross: string;
  lines: InvoiceLine[];
}

const draftReplacements = (content: DraftContent) => ({
  number: content.number,
  invoiceDate: content.invoiceDate,
  dueDate: content.dueDate,
  counterpartyId: content.counterpartyId,
  currency: content.currency,
  description: content.description,
  lineCount: content.lines.length,
  totalNet: content.totalNet,
  totalVat: content.totalVat,
  totalGross: content.totalGross,
});

function linesInsert(scope: CompanyScope, invoiceId: string, lines: InvoiceLine[]): Statement {
  return {
    sql: `INSERT INTO invoice_lines (tenant_id, invoice_id, line_no, description, quantity, unit_price, account_code, vat_rate, catalog_code, net, vat, gross)
          SELECT :tenantId, :invoiceId, l.* FROM unnest(ARRAY[:lineNos]::int[], ARRAY[:descriptions]::text[], ARRAY[:quantities]::numeric[],
                 ARRAY[:prices]::numeric[], ARRAY[:accounts]::text[], ARRAY[:rates]::numeric[], ARRAY[:catalogCodes]::text[],
                 ARRAY[:nets]::numeric[], ARRAY[:vats]::numeric[], ARRAY[:grosses]::numeric[])
                 AS l(line_no, description, quantity, unit_price, account_code, vat_rate, catalog_code, net, vat, gross)`,
    replacements: {
      tenantId: scope.tenantId,
      invoiceId,
      lineNos: lines.map((l) => l.lineNo),
      descriptions: lines.map((l) => l.description),
      quantities: lines.map((l) => l.quantity),
      prices: lines.map((l) => l.unitPrice),
      accounts: lines.map((l) => l.account),
      rates: lines.map((l) => l.vatRate),
      catalogCodes: lines.map((l) => l.catalogCode),
      nets: lines.map((l) => l.net),
      vats: lines.map((l) => l.vat),
      grosses: lines.map((l) => l.gross),
    },
  };
}

/** Writes a new draft at version 1 and its lines (one round trip). */
export async function insertDraft(tx: Tx, scope: CompanyScope, draft: DraftContent & { id: string; kind: InvoiceKind; createdBy: string | null }): Promise<void> {
  await selectBatch(tx, [
    {
      sql: `INSERT INTO invoices (tenant_id, id, legal_entity_id, kind, status, number, invoice_date, due_date, counterparty_id, currency, description,
                                  line_count, total_net, total_vat, total_gross, version, created_by_membership_id)
            VALUES (:tenantId, :id, :legalEntityId, :kind, 'DRAFT', :number, :invoiceDate, :dueDate, :counterpartyId, :currency, :description,
                    :lineCount, :totalNet, :totalVat, :totalGross, 1, :createdBy)`,
      replacements: { ...scope, id: draft.id, kind: draft.kind, createdBy: draft.createdBy, ...draftReplacements(draft) },
    },
    linesInsert(scope, draft.id, draft.lines),
  ]);
}

/** Replaces a draft's content and lines, version + 1; false when it is no longer that version or no longer a draft. */
export async function replaceDraft(tx: Tx, scope: CompanyScope, id: string, expectedVersion: number, content: DraftContent): Promise<boolean> {
  const [updated] = await selectRows<{ id: string }>(
    tx,
    `UPDATE invoices SET number = :number, invoice_date = :invoiceDate, due_date = :dueDate, counterparty_id = :counterpartyId, currency = :currency,
            description = :description, line_count = :lineCount, total_net = :totalNet, total_vat = :totalVat, total_gross = :totalGross,
            version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND version = :expectedVersion AND status = 'DRAFT'
      RETURNING id`,
    { ...scope, id, expectedVersion, ...draftReplacements(content) },
  );
  if (!updated) return false;
  await selectBatch(tx, [
    { sql: 'DELETE FROM invoice_lines WHERE tenant_id = :tenantId AND invoice_id = :id', replacements: { tenantId: scope.tenantId, id } },
    linesInsert(scope, id, content.lines),
  ]);
  return true;
}

/** Deletes a draft and its lines; false when it is not a draft (any more). */
export async function deleteDraft(tx: Db, scope: CompanyScope, id: string): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    tx,
    "DELETE FROM invoices WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND status = 'DRAFT' RETURNING id",
    { ...scope, id },
  );
  return rows.length === 1;
}

/**
 * The next number of the company's SALES series of `year`: the counter row is taken and held until commit,
 * so concurrent postings of one company and year wait for each other and a rolled-back posting returns its
 * number (gapless).
 */
/**
 * Takes the company's next sales invoice number of `year` (gapless: the counter row is held until commit) and
 * sets it, transaction-local, as `app.document_number` ('2026-000042') and `app.document_sequence` (42), for the
 * statements after it in the same batch (LateText). One row, `number`.
 */
export function takeSalesNumberStatement(scope: CompanyScope, year: number): Statement {
  return {
    sql: `WITH taken AS (
       INSERT INTO document_counters AS c (tenant_id, legal_entity_id, series, year, next_number) VALUES (:tenantId, :legalEntityId, 'SALES', :year, 2)
       ON CONFLICT (tenant_id, legal_entity_id, series, year) DO UPDATE SET next_number = c.next_number + 1
       RETURNING c.next_number - 1 AS n
     )
     SELECT n AS number,
            set_config('app.document_number', CAST(:year AS text) || '-' || CASE WHEN n >= 1000000 THEN CAST(n AS text) ELSE lpad(CAST(n AS text), 6, '0') END, true) AS formatted,
            set_config('app.document_sequence', CAST(n AS text), true) AS sequence
       FROM taken`,
    replacements: { ...scope, year },
  };
}

/** What takeSalesNumberStatement sets, as LateText expressions. */
export const TAKEN_NUMBER = { formatted: "current_setting('app.document_number')", sequence: "current_setting('app.document_sequence')" };

export interface Posted {
  number: string;
  sequenceYear: number | null;
  /** A number, or the LateText marker of the one the batch takes. */
  sequenceNumber: number | string | null;
  rate: string | null;
  rateDate: string | null;
  grossUzs: string;
  vatUzs: string;
  lineUzs: Array<{ netUzs: string; vatUzs: string }>;
  entryId: string;
  postedBy: string | null;
}

/**
 * The posting context (postingContextOf) of the entry that posting the invoice writes, read from the invoice
 * itself, so it travels with the transaction's opening: its lines' accounts and `accounts` (the settlement and
 * VAT accounts the entry may name; one more known code checks nothing less), its counterparty, its currency
 * when it is foreign, its date. A function (migration 2026.11.29T06.30.00.invoice-posting-functions), planned
 * once per connection.
 */
export function invoicePostingContextStatement(scope: CompanyScope, id: string, input: { requestId: string; accounts: string[]; functionalCurrency: string }): Statement {
  return {
    sql: 'SELECT * FROM app_invoice_posting_context(:tenantId, :legalEntityId, :id, :requestId, CAST(:accounts AS text[]), :functionalCurrency)',
    replacements: { ...scope, id, requestId: input.requestId, accounts: `{${input.accounts.join(',')}}`, functionalCurrency: input.functionalCurrency },
  };
}

/** The invoice's columns its posting writes that the caller does not choose: the number taken, the version, the times. */
export interface PostedRow {
  number: string;
  version: string;
  posted_at: Date;
  updated_at: Date;
}

/**
 * The lines' UZS amounts of a draft being posted, in line order, for the posting's batch ahead of the
 * statements that take the company's counters: nothing here waits for them, so it is not done while they are
 * held (the invoice row is held by the posting's transaction already). A function, planned once per connection.
 */
export function lineUzsStatement(scope: CompanyScope, id: string, posted: Pick<Posted, 'lineUzs'>): Statement {
  return {
    sql: 'SELECT app_set_invoice_line_uzs(:tenantId, :id, ARRAY[:nets]::numeric[], ARRAY[:vats]::numeric[])',
    replacements: { tenantId: scope.tenantId, id, nets: posted.lineUzs.map((l) => l.netUzs), vats: posted.lineUzs.map((l) => l.vatUzs) },
  };
}

/**
 * Records the posting on a draft, version + 1, for the posting's batch after its entry (it names the entry and
 * the number taken); nothing changes on the invoice when the cut-off refused its entry. It answers what the
 * database wrote of the invoice (PostedRow). A function, planned once per connection.
 */
export function markPostedStatement(scope: CompanyScope, id: string, posted: Posted): Statement {
  return {
    sql: `SELECT * FROM app_mark_invoice_posted(:tenantId, :legalEntityId, :id, :number, CAST(:sequenceYear AS integer), CAST(:sequenceNumber AS integer),
            CAST(:rate AS numeric), CAST(:rateDate AS date), CAST(:grossUzs AS numeric), CAST(:vatUzs AS numeric), CAST(:entryId AS uuid), CAST(:postedBy AS uuid))`,
    replacements: { ...scope, id, ...posted, lineUzs: null },
  };
}

/** Records the cancellation of a posted invoice, version + 1. */
export async function markCancelled(tx: Db, scope: CompanyScope, id: string, cancellation: { entryId: string; date: string; reason: string; requestId: string }): Promise<void> {
  await selectRows(
    tx,
    `UPDATE invoices SET status = 'CANCELLED', cancellation_entry_id = :entryId, cancellation_date = :date, cancellation_reason = :reason,
            cancellation_request_id = :requestId, version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND status = 'POSTED'`,
    { ...scope, id, ...cancellation },
  );
}
