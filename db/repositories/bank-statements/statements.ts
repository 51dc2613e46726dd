import { selectBatch, selectBound, selectRows, type Db, type Tx } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { CandidateInvoice, StatementSummary } from '../../../core/bank-statements/lines';
import type { LineProposal } from '../../../core/bank-statements/rules';
import type { ParsedLine, StatementFormat } from '../../../core/bank-statements/statements';

// Operations: importBankStatement, getBankStatementImport, listBankLines, matchBankLine, unmatchBankLine, and
// the activities of importBankStatementWorkflow. Raw SQL throughout: an import is created once per file and
// account (INSERT … ON CONFLICT DO NOTHING), lines are stored once per account under their key.

export type ImportStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';
export type LineStatus = 'UNMATCHED' | 'PROPOSED' | 'MATCHED';

export interface ImportProblem {
  type: string;
  title: string;
  detail: string;
  difference?: string;
  line?: number;
}

export interface ImportRow {
  id: string;
  bankAccountId: string;
  sha256: string;
  contentType: string;
  byteSize: number;
  status: ImportStatus;
  format: StatementFormat | null;
  statementCount: number | null;
  periodFrom: string | null;
  periodTo: string | null;
  openingBalance: string | null;
  closingBalance: string | null;
  counts: { read: number; new: number; duplicate: number; matched: number; proposed: number; unmatched: number };
  linesStored: boolean;
  linesProposed: boolean;
  /** The person who imported it: matches that rules confirm during the import are made on their behalf. */
  importedBy: string | null;
  problem: ImportProblem | null;
  createdAt: Date;
  completedAt: Date | null;
}

const IMPORT_COLUMNS = `id, bank_account_id, sha256, content_type, byte_size, status, format, statement_count,
  to_char(period_from, 'YYYY-MM-DD') AS period_from, to_char(period_to, 'YYYY-MM-DD') AS period_to,
  opening_balance::text AS opening_balance, closing_balance::text AS closing_balance,
  read_count, new_count, duplicate_count, matched_count, proposed_count, unmatched_count, lines_stored, lines_proposed, imported_by_membership_id, problem, created_at, completed_at`;

interface RawImport {
  id: string;
  bank_account_id: string;
  sha256: string;
  content_type: string;
  byte_size: number;
  status: ImportStatus;
  format: StatementFormat | null;
  statement_count: number | null;
  period_from: string | null;
  period_to: string | null;
  opening_balance: string | null;
  closing_balance: string | null;
  read_count: number;
  new_count: number;
  duplicate_count: number;
  matched_count: number;
  proposed_count: number;
  unmatched_count: number;
  lines_stored: boolean;
  lines_proposed: boolean;
  imported_by_membership_id: string | null;
  problem: ImportProblem | null;
  created_at: Date;
  completed_at: Date | null;
}

const importOf = (r: RawImport): ImportRow => ({
  id: r.id,
  bankAccountId: r.bank_account_id,
  sha256: r.sha256,
  contentType: r.content_type,
  byteSize: r.byte_size,
  status: r.status,
  format: r.format,
  statementCount: r.statement_count,
  periodFrom: r.period_from,
  periodTo: r.period_to,
  openingBalance: r.opening_balance,
  closingBalance: r.closing_balance,
  counts: { read: r.read_count, new: r.new_count, duplicate: r.duplicate_count, matched: r.matched_count, proposed: r.proposed_count, unmatched: r.unmatched_count },
  linesStored: r.lines_stored,
  linesProposed: r.lines_proposed,
  importedBy: r.imported_by_membership_id,
  problem: r.problem,
  createdAt: r.created_at,
  completedAt: r.completed_at,
});

const inCompany = (scope: CompanyScope) => ({ tenantId: scope.tenantId, legalEntityId: scope.legalEntityId });

/** A new import of a file, RUNNING; null when this account has an import of the same file already. */
export async function insertImport(
  tx: Tx,
  scope: CompanyScope,
  row: {
    id: string;
    bankAccountId: string;
    sha256: string;
    contentType: string;
    byteSize: number;
    importedBy: string | null;
    correlationId: string | null;
    /** A CSV or XLSX file's column profile, copied as it is now. */
    profile: { id: string; profile: Record<string, unknown> } | null;
  },
): Promise<ImportRow | null> {
  const [inserted] = await selectRows<RawImport>(
    tx,
    `INSERT INTO bank_statement_imports (tenant_id, id, legal_entity_id, bank_account_id, sha256, content_type, byte_size, status, imported_by_membership_id, correlation_id,
                                         profile_id, profile)
     VALUES (:tenantId, :id, :legalEntityId, :bankAccountId, :sha256, :contentType, :byteSize, 'RUNNING', :importedBy, :correlationId,
             CAST(:profileId AS uuid), CAST(:profile AS jsonb))
     ON CONFLICT (tenant_id, bank_account_id, sha256) DO NOTHING
     RETURNING ${IMPORT_COLUMNS}`,
    { ...inCompany(scope), ...row, profileId: row.profile?.id ?? null, profile: row.profile ? JSON.stringify(row.profile.profile) : null },
  );
  return inserted ? importOf(inserted) : null;
}

/** The most bytes of a file part (migration 2026.11.29T05.00.00.bank-statement-file-parts). */
export const FILE_PART_BYTES = 1024 * 1024;

/**
 * The import's file, stored a part at a time as its parts are read (each at most FILE_PART_BYTES). Each part is
 * sent before the next is asked for, so a source may reuse one buffer.
 */
export async function insertImportFile(tx: Tx, scope: CompanyScope, importId: string, parts: AsyncIterable<Buffer>): Promise<void> {
  let part = 0;
  for await (const content of parts) {
    // A Buffer is sent as a binary parameter: the part, not its hex text.
    await selectBound(tx, 'INSERT INTO bank_statement_file_parts (tenant_id, import_id, part, content) VALUES ($1, $2, $3, $4)', [scope.tenantId, importId, part, content]);
    part += 1;
  }
}

/** The copy of the column profile the import's file is read with (CSV and XLSX), or null. */
export async function findImportProfile(tx: Db, scope: CompanyScope, importId: string): Promise<Record<string, unknown> | null> {
  const [row] = await selectRows<{ profile: Record<string, unknown> | null }>(tx, 'SELECT profile FROM bank_statement_imports WHERE tenant_id = :tenantId AND id = :importId', {
    tenantId: scope.tenantId,
    importId,
  });
  return row?.profile ?? null;
}

/** The import's file, a part (a MiB) per round trip: never the whole file at once. */
export async function* importFileChunks(tx: Db, scope: CompanyScope, importId: string): AsyncGenerator<Buffer> {
  for (let part = 0; ; part += 1) {
    const [row] = await selectRows<{ content: Buffer }>(
      tx,
      'SELECT content FROM bank_statement_file_parts WHERE tenant_id = :tenantId AND import_id = :importId AND part = :part',
      { tenantId: scope.tenantId, importId, part },
    );
    if (!row) return;
    yield row.content;
  }
}

export async function findImport(
  tx: Db,
  scope: CompanyScope,
  by: { id: string; bankAccountId?: string } | { bankAccountId: string; sha256: string },
  options: { lock?: boolean } = {},
): Promise<ImportRow | null> {
  const condition = 'id' in by ? `id = :id${by.bankAccountId ? ' AND bank_account_id = :bankAccountId' : ''}` : 'bank_account_id = :bankAccountId AND sha256 = :sha256';
  const [row] = await selectRows<RawImport>(
    tx,
    `SELECT ${IMPORT_COLUMNS} FROM bank_statement_imports WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND ${condition}${options.lock ? ' FOR UPDATE' : ''}`,
    { ...inCompany(scope), bankAccountId: null, ...by },
  );
  return row ? importOf(row) : null;
}

/** Ends a RUNNING import FAILED with its problem; false when it had ended already. */
export async function failImport(tx: Tx, scope: CompanyScope, id: string, problem: ImportProblem, format: StatementFormat | null): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `UPDATE bank_statement_imports SET status = 'FAILED', problem = CAST(:problem AS jsonb), format = coalesce(:format, format), completed_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :id AND status = 'RUNNING' RETURNING id`,
    { ...inCompany(scope), id, problem: JSON.stringify(problem), format },
  );
  return rows.length === 1;
}

export interface LineToStore extends ParsedLine {
  lineNo: number;
  key: string;
}

/** How many rows one INSERT carries: a statement's lines are stored in a few statements, not one per line. */
const STORE_CHUNK = 2000;

/** Lines of a statement, each stored unless the account has its key already; how many were stored. */
export async function insertImportLines(tx: Tx, scope: CompanyScope, target: { importId: string; bankAccountId: string }, lines: LineToStore[]): Promise<number> {
  let stored = 0;
  for (let at = 0; at < lines.length; at += STORE_CHUNK) {
    const chunk = lines.slice(at, at + STORE_CHUNK).map((l) => ({
      line_no: l.lineNo,
      line_date: l.date,
      direction: l.direction,
      amount: l.amount,
      reference: l.reference ?? null,
      counterparty_name: l.counterpartyName ?? null,
      counterparty_tin: l.counterpartyTin ?? null,
      counterparty_account: l.counterpartyAccount ?? null,
      counterparty_bank_code: l.counterpartyBankCode ?? null,
      purpose: l.purpose,
      document_number: l.documentNumber ?? null,
      dedup_key: l.key,
    }));
    const rows = await selectRows<{ n: string }>(
      tx,
      `WITH inserted AS (
         INSERT INTO bank_lines (tenant_id, id, legal_entity_id, bank_account_id, import_id, line_no, line_date, direction, amount, reference,
                                 counterparty_name, counterparty_tin, counterparty_account, counterparty_bank_code, purpose, document_number, dedup_key, status)
         SELECT :tenantId, gen_random_uuid(), :legalEntityId, :bankAccountId, :importId, r.line_no, r.line_date, r.direction, r.amount, r.reference,
                r.counterparty_name, r.counterparty_tin, r.counterparty_account, r.counterparty_bank_code, r.purpose, r.document_number, r.dedup_key, 'UNMATCHED'
           FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(line_no integer, line_date date, direction text, amount numeric, reference text, counterparty_name text,
                counterparty_tin text, counterparty_account text, counterparty_bank_code text, purpose text, document_number text, dedup_key text)
          ORDER BY r.line_no
         ON CONFLICT (tenant_id, bank_account_id, dedup_key) DO NOTHING
         RETURNING 1)
       SELECT count(*) AS n FROM inserted`,
      { ...inCompany(scope), bankAccountId: target.bankAccountId, importId: target.importId, rows: JSON.stringify(chunk) },
    );
    stored += Number(rows[0]!.n);
  }
  return stored;
}

/**
 * The import's statement details and read/new/duplicate counts, its lines stored (insertImportLines); the
 * import is left RUNNING (matching is next).
 */
export async function markLinesStored(
  tx: Tx,
  scope: CompanyScope,
  input: { importId: string; format: StatementFormat; statementCount: number; summary: StatementSummary; counts: { read: number; new: number; duplicate: number } },
): Promise<void> {
  await selectRows(
    tx,
    `UPDATE bank_statement_imports
        SET lines_stored = true, format = :format, statement_count = :statementCount, period_from = CAST(:periodFrom AS date), period_to = CAST(:periodTo AS date),
            opening_balance = :openingBalance, closing_balance = :closingBalance, read_count = :read, new_count = :new, duplicate_count = :duplicate
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :importId`,
    { ...inCompany(scope), importId: input.importId, format: input.format, statementCount: input.statementCount, ...input.summary, ...input.counts },
  );
}

/** The lines of an import a page holds, by their numbers: lines (from, from + size]. */
export interface LinePage {
  from: number;
  size: number;
}

/**
 * For each line of the import still UNMATCHED whose payer (IN) or payee (OUT) TIN or PINFL names an active
 * counterparty: that counterparty's posted invoices of the line's kind and the account's currency, dated on or
 * before the line, whose outstanding equals the line's amount.
 */
export async function defaultCandidates(
  tx: Db,
  scope: CompanyScope,
  query: { importId: string; currency: string; page: LinePage },
): Promise<Array<{ lineId: string; amount: string; counterpartyTin: string; candidates: CandidateInvoice[] }>> {
  const rows = await selectRows<{ line_id: string; amount: string; counterparty_tin: string; invoice_id: string; number: string | null; counterparty_id: string; outstanding: string }>(
    tx,
    `SELECT l.id AS line_id, l.amount::text AS amount, l.counterparty_tin, i.id AS invoice_id, i.number, i.counterparty_id, (i.total_gross - i.allocated)::text AS outstanding
       FROM bank_lines l
       JOIN counterparties c ON c.tenant_id = l.tenant_id AND c.legal_entity_id = l.legal_entity_id AND NOT c.archived
                            AND (c.tin = l.counterparty_tin OR c.pinfl = l.counterparty_tin)
       JOIN invoices i ON i.tenant_id = l.tenant_id AND i.legal_entity_id = l.legal_entity_id AND i.counterparty_id = c.id
                      AND i.kind = CASE l.direction WHEN 'IN' THEN 'SALES' ELSE 'PURCHASE' END
                      AND i.currency = :currency AND i.status = 'POSTED' AND i.invoice_date <= l.line_date
                      AND i.total_gross - i.allocated = l.amount
      WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.import_id = :importId AND l.status = 'UNMATCHED'
        AND l.counterparty_tin IS NOT NULL AND l.line_no > :from AND l.line_no <= :from + :size
      ORDER BY l.line_no, i.id`,
    { ...inCompany(scope), importId: query.importId, currency: query.currency, ...query.page },
  );
  const byLine = new Map<string, { lineId: string; amount: string; counterpartyTin: string; candidates: CandidateInvoice[] }>();
  for (const r of rows) {
    const entry = byLine.get(r.line_id) ?? { lineId: r.line_id, amount: r.amount, counterpartyTin: r.counterparty_tin, candidates: [] };
    entry.candidates.push({ invoiceId: r.invoice_id, invoiceNumber: r.number, counterpartyId: r.counterparty_id, outstanding: r.outstanding });
    byLine.set(r.line_id, entry);
  }
  return [...byLine.values()];
}

/** The import's lines of a page still UNMATCHED, in the statement's order: what the rules are tried on. */
export async function unmatchedLinesOfImport(tx: Db, scope: CompanyScope, importId: string, page: LinePage): Promise<BankLineRow[]> {
  const rows = await selectRows<RawLine>(
    tx,
    `SELECT ${LINE_COLUMNS} FROM bank_lines WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND import_id = :importId AND status = 'UNMATCHED'
        AND line_no > :from AND line_no <= :from + :size ORDER BY line_no`,
    { ...inCompany(scope), importId, ...page },
  );
  return rows.map(lineOf);
}

/** The invoices proposed on the company's lines still waiting for confirmation: one invoice is proposed to one line at a time. */
export async function proposedInvoiceIds(tx: Db, scope: CompanyScope): Promise<Set<string>> {
  const rows = await selectRows<{ invoice_id: string }>(
    tx,
    `SELECT DISTINCT a->>'invoiceId' AS invoice_id FROM bank_lines l, jsonb_array_elements(l.proposal->'allocations') a
      WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.status = 'PROPOSED'`,
    inCompany(scope),
  );
  return new Set(rows.map((r) => r.invoice_id));
}

/** How many proposals go in one round trip. */
const PROPOSE_CHUNK = 500;

/**
 * Proposals for lines still UNMATCHED (a line matched meanwhile keeps its match): one UPDATE by primary key per
 * line, sent a few hundred to a round trip. Not one UPDATE joined to the proposals as a record set: the lines were
 * just inserted, their table's statistics do not count them yet, and the planner then reads the whole record set
 * again for every line (5,000 proposals took 10 s that way; these take a fraction of a second).
 */
export async function proposeLines(tx: Tx, scope: CompanyScope, proposals: Array<{ lineId: string; proposal: LineProposal }>): Promise<void> {
  for (let at = 0; at < proposals.length; at += PROPOSE_CHUNK) {
    await selectBatch(
      tx,
      proposals.slice(at, at + PROPOSE_CHUNK).map((p) => ({
        sql: `UPDATE bank_lines SET status = 'PROPOSED', proposal = CAST(:proposal AS jsonb), version = version + 1
               WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :lineId AND status = 'UNMATCHED'`,
        replacements: { ...inCompany(scope), lineId: p.lineId, proposal: JSON.stringify(p.proposal) },
      })),
    );
  }
}

/** The import's lines have their proposals: a retried step does not propose them again. */
export async function markImportProposed(tx: Tx, scope: CompanyScope, importId: string): Promise<void> {
  await selectRows(tx, 'UPDATE bank_statement_imports SET lines_proposed = true WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :importId', {
    ...inCompany(scope),
    importId,
  });
}

/** The import's lines whose proposal its rule confirms by itself and that wait for it, in the statement's order. */
export async function autoConfirmLineIds(tx: Db, scope: CompanyScope, importId: string): Promise<string[]> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `SELECT id FROM bank_lines WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND import_id = :importId
        AND status = 'PROPOSED' AND (proposal->>'autoConfirm')::boolean ORDER BY line_no`,
    { ...inCompany(scope), importId },
  );
  return rows.map((r) => r.id);
}

/** A proposal the import could not confirm stays for a person, its reason saying why. */
export async function declineAutoConfirm(tx: Tx, scope: CompanyScope, lineId: string, why: string): Promise<void> {
  await selectRows(
    tx,
    `UPDATE bank_lines SET proposal = proposal || jsonb_build_object('autoConfirm', false, 'reason', left(proposal->>'reason' || '; not confirmed by itself: ' || :why, 500)),
            version = version + 1
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :lineId AND status = 'PROPOSED'`,
    { ...inCompany(scope), lineId, why },
  );
}

/** Ends a RUNNING import COMPLETED, its matched/proposed/unmatched counts those of the lines it added; false when it had ended already. */
export async function completeImport(tx: Tx, scope: CompanyScope, id: string): Promise<ImportRow | null> {
  const [row] = await selectRows<RawImport>(
    tx,
    `UPDATE bank_statement_imports i
        SET status = 'COMPLETED', completed_at = now(),
            matched_count = c.matched, proposed_count = c.proposed, unmatched_count = c.unmatched
       FROM (SELECT count(*) FILTER (WHERE status = 'MATCHED') AS matched, count(*) FILTER (WHERE status = 'PROPOSED') AS proposed,
                    count(*) FILTER (WHERE status = 'UNMATCHED') AS unmatched
               FROM bank_lines WHERE tenant_id = :tenantId AND import_id = :id) c
      WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.id = :id AND i.status = 'RUNNING'
      RETURNING ${IMPORT_COLUMNS}`,
    { ...inCompany(scope), id },
  );
  return row ? importOf(row) : null;
}

export interface BankLineRow {
  id: string;
  bankAccountId: string;
  importId: string;
  lineNo: number;
  date: string;
  direction: 'IN' | 'OUT';
  amount: string;
  reference: string | null;
  counterpartyName: string | null;
  counterpartyTin: string | null;
  counterpartyAccount: string | null;
  counterpartyBankCode: string | null;
  purpose: string;
  documentNumber: string | null;
  status: LineStatus;
  proposal: LineProposal | null;
  paymentId: string | null;
  entryId: string | null;
  matchedAt: Date | null;
  version: number;
}

const LINE_COLUMNS = `id, bank_account_id, import_id, line_no, to_char(line_date, 'YYYY-MM-DD') AS line_date, direction, amount::text AS amount, reference,
  counterparty_name, counterparty_tin, counterparty_account, counterparty_bank_code, purpose, document_number, status, proposal, payment_id, entry_id, matched_at, version`;

interface RawLine {
  id: string;
  bank_account_id: string;
  import_id: string;
  line_no: number;
  line_date: string;
  direction: 'IN' | 'OUT';
  amount: string;
  reference: string | null;
  counterparty_name: string | null;
  counterparty_tin: string | null;
  counterparty_account: string | null;
  counterparty_bank_code: string | null;
  purpose: string;
  document_number: string | null;
  status: LineStatus;
  proposal: LineProposal | null;
  payment_id: string | null;
  entry_id: string | null;
  matched_at: Date | null;
  version: string;
}

const lineOf = (r: RawLine): BankLineRow => ({
  id: r.id,
  bankAccountId: r.bank_account_id,
  importId: r.import_id,
  lineNo: r.line_no,
  date: r.line_date,
  direction: r.direction,
  amount: r.amount,
  reference: r.reference,
  counterpartyName: r.counterparty_name,
  counterpartyTin: r.counterparty_tin,
  counterpartyAccount: r.counterparty_account,
  counterpartyBankCode: r.counterparty_bank_code,
  purpose: r.purpose,
  documentNumber: r.document_number,
  status: r.status,
  proposal: r.proposal,
  paymentId: r.payment_id,
  entryId: r.entry_id,
  matchedAt: r.matched_at,
  version: Number(r.version),
});

export interface LineFilter {
  bankAccountId: string;
  status?: LineStatus;
  importId?: string;
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

/** A page of an account's lines in date order (then the statement's order), with the total. */
export async function listLines(tx: Db, scope: CompanyScope, filter: LineFilter): Promise<{ rows: BankLineRow[]; total: number }> {
  const conditions = ['tenant_id = :tenantId', 'legal_entity_id = :legalEntityId', 'bank_account_id = :bankAccountId'];
  if (filter.status) conditions.push('status = :status');
  if (filter.importId) conditions.push('import_id = :importId');
  if (filter.from) conditions.push('line_date >= CAST(:from AS date)');
  if (filter.to) conditions.push('line_date <= CAST(:to AS date)');
  const where = conditions.join(' AND ');
  const replacements = { ...inCompany(scope), status: null, importId: null, from: null, to: null, ...filter };
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM bank_lines WHERE ${where}`, replacements);
  const rows = await selectRows<RawLine>(tx, `SELECT ${LINE_COLUMNS} FROM bank_lines WHERE ${where} ORDER BY line_date, import_id, line_no, id LIMIT :limit OFFSET :offset`, replacements);
  return { rows: rows.map(lineOf), total: Number(counted!.total) };
}

export async function findLine(tx: Db, scope: CompanyScope, by: { bankAccountId: string; id: string }, options: { lock?: boolean } = {}): Promise<BankLineRow | null> {
  const [row] = await selectRows<RawLine>(
    tx,
    `SELECT ${LINE_COLUMNS} FROM bank_lines WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND bank_account_id = :bankAccountId AND id = :id${options.lock ? ' FOR UPDATE' : ''}`,
    { ...inCompany(scope), ...by },
  );
  return row ? lineOf(row) : null;
}

/** MATCHED by a payment (its invoices, or an advance) or by an entry of its own (posted to an account). */
export async function markLineMatched(tx: Tx, scope: CompanyScope, lineId: string, match: { paymentId: string | null; entryId: string | null; by: string | null }): Promise<void> {
  await selectRows(
    tx,
    `UPDATE bank_lines SET status = 'MATCHED', payment_id = :paymentId, entry_id = :entryId, matched_at = now(), matched_by_membership_id = :by, version = version + 1
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :lineId`,
    { ...inCompany(scope), lineId, ...match },
  );
}

/** Back to PROPOSED when it has a proposal, else UNMATCHED. */
export async function markLineUnmatched(tx: Tx, scope: CompanyScope, lineId: string): Promise<void> {
  await selectRows(
    tx,
    `UPDATE bank_lines SET status = CASE WHEN proposal IS NULL THEN 'UNMATCHED' ELSE 'PROPOSED' END, payment_id = NULL, entry_id = NULL, matched_at = NULL,
            matched_by_membership_id = NULL, version = version + 1
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :lineId`,
    { ...inCompany(scope), lineId },
  );
}

/** What the bank reconciliation of an account at a date is computed from (getBankReconciliation). */
export interface ReconciliationInputs {
  /** The first day a completed import of the account covers, and its opening balance; null before any. */
  firstStatement: { date: string; openingBalance: string } | null;
  /** The statement's lines dated on or before the date: Σ in − Σ out. */
  linesTotal: string;
  /** The GL account's balance at the date (debit − credit; in the account's currency for a foreign one). */
  ledgerBalance: string;
  unmatchedStatementLines: BankLineRow[];
  unmatchedLedgerLines: Array<{ entryId: string; entryNumber: string; date: string; description: string; amount: string }>;
}

/**
 * The account's statement and GL figures at `asOf`. A ledger line is explained by a statement line when its entry
 * is the posting of a payment settled from a bank line; an entry and its reversal both dated by `asOf` cancel
 * out (a payment unmatched from its line is one such pair). Amounts are signed: money in (debit) positive.
 */
export async function reconciliationInputs(
  tx: Db,
  scope: CompanyScope,
  query: { bankAccountId: string; accountCode: string; currency: string; asOf: string },
): Promise<ReconciliationInputs> {
  const replacements = { ...inCompany(scope), ...query, foreign: query.currency !== 'UZS' };
  const [first] = await selectRows<{ date: string; opening_balance: string }>(
    tx,
    `SELECT to_char(period_from, 'YYYY-MM-DD') AS date, opening_balance::text AS opening_balance FROM bank_statement_imports
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND bank_account_id = :bankAccountId AND status = 'COMPLETED' AND period_from IS NOT NULL
      ORDER BY period_from, created_at LIMIT 1`,
    replacements,
  );
  const [lines] = await selectRows<{ total: string }>(
    tx,
    `SELECT coalesce(sum(CASE direction WHEN 'IN' THEN amount ELSE -amount END), 0)::text AS total FROM bank_lines
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND bank_account_id = :bankAccountId AND line_date <= :asOf`,
    replacements,
  );
  // One signed amount per GL line: UZS, or the account's currency for a foreign account (revaluations move UZS only).
  const signed = `CASE WHEN :foreign THEN CASE WHEN l.currency = :currency THEN CASE WHEN l.debit > 0 THEN l.currency_amount ELSE -l.currency_amount END ELSE 0 END
                       ELSE l.debit - l.credit END`;
  const [ledger] = await selectRows<{ balance: string }>(
    tx,
    `SELECT coalesce(sum(${signed}), 0)::text AS balance FROM journal_lines l
      WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = :accountCode AND l.entry_date <= :asOf`,
    replacements,
  );
  const unmatched = await selectRows<RawLine>(
    tx,
    `SELECT ${LINE_COLUMNS} FROM bank_lines
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND bank_account_id = :bankAccountId AND line_date <= :asOf AND status <> 'MATCHED'
      ORDER BY line_date, import_id, line_no, id`,
    replacements,
  );
  const ledgerLines = first
    ? await selectRows<{ entry_id: string; number: string; date: string; description: string; amount: string }>(
        tx,
        `SELECT e.id AS entry_id, e.number::text AS number, to_char(e.entry_date, 'YYYY-MM-DD') AS date, e.description, sum(${signed})::text AS amount
           FROM journal_lines l JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id
          WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = :accountCode
            AND l.entry_date >= CAST(:firstDate AS date) AND l.entry_date <= :asOf
            AND e.source_type IS DISTINCT FROM 'BANK_LINE'
            AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.tenant_id = e.tenant_id AND p.entry_id = e.id AND p.bank_line_id IS NOT NULL)
            AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.tenant_id = e.tenant_id AND r.reversal_of = e.id AND r.entry_date <= :asOf)
            AND NOT EXISTS (SELECT 1 FROM journal_entries o WHERE o.tenant_id = e.tenant_id AND o.id = e.reversal_of AND o.entry_date <= :asOf)
          GROUP BY e.id, e.number, e.entry_date, e.description
         HAVING sum(${signed}) <> 0
          ORDER BY e.entry_date, e.number`,
        { ...replacements, firstDate: first.date },
      )
    : [];
  return {
    firstStatement: first ? { date: first.date, openingBalance: first.opening_balance } : null,
    linesTotal: lines!.total,
    ledgerBalance: ledger!.balance,
    unmatchedStatementLines: unmatched.map(lineOf),
    unmatchedLedgerLines: ledgerLines.map((r) => ({ entryId: r.entry_id, entryNumber: r.number, date: r.date, description: r.description, amount: r.amount })),
  };
}
