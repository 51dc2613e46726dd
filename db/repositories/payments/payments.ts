import { selectRows, type Db, type Tx } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { Direction, OpenInvoice } from '../../../core/payments/payments';

// Payments and their allocations to invoices. Serves listPayments, postPayment, getPayment, allocatePayment
// and cancelPayment. Raw SQL: every change is guarded by the state it expects, and an allocation moves three
// rows (the allocation, the invoice's and the payment's running sums) that the deferred trigger of migration
// 2026.11.26T15.00.00.payments checks against each other at commit. Invoices are taken FOR UPDATE in id
// order, whoever asks, so concurrent allocations queue on each invoice and never deadlock.

export interface PaymentRow {
  id: string;
  direction: Direction;
  status: 'POSTED' | 'CANCELLED';
  payment_date: string;
  counterparty_id: string;
  counterparty_name: string;
  currency: string;
  amount: string;
  allocated: string;
  money_account: string;
  description: string | null;
  rate: string | null;
  rate_date: string | null;
  amount_uzs: string;
  request_id: string;
  request_hash: string;
  entry_id: string;
  bank_line_id: string | null;
  cancellation_entry_id: string | null;
  cancellation_date: string | null;
  cancellation_reason: string | null;
  cancellation_request_id: string | null;
  version: string;
  created_at: Date;
  updated_at: Date;
}

export interface AllocationRow {
  id: string;
  payment_id: string;
  invoice_id: string;
  invoice_number: string | null;
  amount: string;
  amount_uzs: string;
  allocation_date: string;
  entry_id: string;
  released_date: string | null;
}

const COLUMNS = `p.id, p.direction, p.status, to_char(p.payment_date, 'YYYY-MM-DD') AS payment_date, p.counterparty_id, c.name AS counterparty_name,
  p.currency, p.amount, p.allocated, p.money_account, p.description, p.rate, to_char(p.rate_date, 'YYYY-MM-DD') AS rate_date, p.amount_uzs,
  p.request_id, p.request_hash, p.entry_id, p.cancellation_entry_id, to_char(p.cancellation_date, 'YYYY-MM-DD') AS cancellation_date,
  p.cancellation_reason, p.cancellation_request_id, p.bank_line_id, p.version, p.created_at, p.updated_at`;
const FROM = 'payments p JOIN counterparties c ON c.tenant_id = p.tenant_id AND c.id = p.counterparty_id';

export async function findPayment(tx: Db, scope: CompanyScope, by: { id: string } | { requestId: string }, options: { lock?: boolean } = {}): Promise<PaymentRow | null> {
  const where = 'id' in by ? 'p.id = :id' : 'p.request_id = :requestId';
  const [row] = await selectRows<PaymentRow>(
    tx,
    `SELECT ${COLUMNS} FROM ${FROM} WHERE p.tenant_id = :tenantId AND p.legal_entity_id = :legalEntityId AND ${where}${options.lock ? ' FOR UPDATE OF p' : ''}`,
    { ...scope, ...by },
  );
  return row ?? null;
}

/** A payment's allocations by date, then in the order OLDEST_FIRST takes invoices (one commit writes several at one instant). */
export async function allocationsOf(tx: Db, scope: CompanyScope, paymentIds: string[]): Promise<AllocationRow[]> {
  if (paymentIds.length === 0) return [];
  return selectRows<AllocationRow>(
    tx,
    `SELECT a.id, a.payment_id, a.invoice_id, i.number AS invoice_number, a.amount, a.amount_uzs, to_char(a.allocation_date, 'YYYY-MM-DD') AS allocation_date,
            a.entry_id, to_char(a.released_date, 'YYYY-MM-DD') AS released_date
       FROM payment_allocations a JOIN invoices i ON i.tenant_id = a.tenant_id AND i.id = a.invoice_id
      WHERE a.tenant_id = :tenantId AND a.payment_id = ANY(CAST(:ids AS uuid[]))
      ORDER BY a.payment_id, a.allocation_date, i.due_date, i.invoice_date, i.number, a.id`,
    { tenantId: scope.tenantId, ids: `{${paymentIds.join(',')}}` },
  );
}

export interface PaymentFilter {
  direction?: Direction;
  status?: 'POSTED' | 'CANCELLED';
  counterpartyId?: string;
  dateFrom?: string;
  dateTo?: string;
  limit: number;
  offset: number;
}

export async function listPayments(tx: Db, scope: CompanyScope, filter: PaymentFilter): Promise<{ rows: PaymentRow[]; total: number }> {
  const conditions = ['p.tenant_id = :tenantId', 'p.legal_entity_id = :legalEntityId'];
  if (filter.direction) conditions.push('p.direction = :direction');
  if (filter.status) conditions.push('p.status = :status');
  if (filter.counterpartyId) conditions.push('p.counterparty_id = :counterpartyId');
  if (filter.dateFrom) conditions.push('p.payment_date >= :dateFrom');
  if (filter.dateTo) conditions.push('p.payment_date <= :dateTo');
  const where = conditions.join(' AND ');
  const replacements = { ...scope, ...filter };
  const [counted] = await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM payments p WHERE ${where}`, replacements);
  const rows = await selectRows<PaymentRow>(tx, `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY p.payment_date DESC, p.id LIMIT :limit OFFSET :offset`, replacements);
  return { rows, total: Number(counted!.total) };
}

/** An invoice an allocation may settle, held FOR UPDATE: with what it has outstanding and what it must match. */
export interface LockedInvoice extends OpenInvoice {
  kind: 'SALES' | 'PURCHASE';
  status: 'DRAFT' | 'POSTED' | 'CANCELLED';
  counterpartyId: string;
  currency: string;
  rate: string | null;
  /** The last date an allocation to it was released on (its payment cancelled), or null: it was settled until then. */
  lastRelease: string | null;
}

/** The company's invoices among `ids`, held FOR UPDATE in id order (every allocation takes them in that order). */
export async function lockInvoices(tx: Tx, scope: CompanyScope, ids: string[]): Promise<Map<string, LockedInvoice>> {
  if (ids.length === 0) return new Map();
  const rows = await selectRows<{ id: string; number: string | null; invoice_date: string; due_date: string; outstanding: string; kind: 'SALES' | 'PURCHASE'; status: LockedInvoice['status']; counterparty_id: string; currency: string; rate: string | null; last_release: string | null }>(
    tx,
    `SELECT id, number, to_char(invoice_date, 'YYYY-MM-DD') AS invoice_date, to_char(due_date, 'YYYY-MM-DD') AS due_date,
            (total_gross - allocated)::text AS outstanding, kind, status, counterparty_id, currency, rate::text AS rate,
            (SELECT to_char(max(a.released_date), 'YYYY-MM-DD') FROM payment_allocations a WHERE a.tenant_id = invoices.tenant_id AND a.invoice_id = invoices.id) AS last_release
       FROM invoices WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = ANY(CAST(:ids AS uuid[]))
      ORDER BY id FOR UPDATE`,
    { ...scope, ids: `{${[...new Set(ids)].join(',')}}` },
  );
  return new Map(
    rows.map((r) => [
      r.id,
      { id: r.id, number: r.number, invoiceDate: r.invoice_date, dueDate: r.due_date, outstanding: r.outstanding, kind: r.kind, status: r.status, counterpartyId: r.counterparty_id, currency: r.currency, rate: r.rate, lastRelease: r.last_release },
    ]),
  );
}

/** The ids of a counterparty's open posted invoices of a kind and currency dated on or before `date` (not locked). */
export async function openInvoiceIds(tx: Tx, scope: CompanyScope, query: { counterpartyId: string; kind: 'SALES' | 'PURCHASE'; currency: string; date: string }): Promise<string[]> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `SELECT id FROM invoices
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND counterparty_id = :counterpartyId AND kind = :kind AND currency = :currency
        AND status = 'POSTED' AND allocated < total_gross AND invoice_date <= :date`,
    { ...scope, ...query },
  );
  return rows.map((r) => r.id);
}

export interface NewPayment {
  id: string;
  direction: Direction;
  date: string;
  counterpartyId: string;
  currency: string;
  amount: string;
  moneyAccount: string;
  description: string | null;
  rate: string | null;
  rateDate: string | null;
  amountUzs: string;
  requestId: string;
  requestHash: string;
  entryId: string;
  postedBy: string | null;
  /** The bank line the payment settles (matchBankLine), or null. */
  bankLineId: string | null;
}

export async function insertPayment(tx: Tx, scope: CompanyScope, payment: NewPayment): Promise<void> {
  await selectRows(
    tx,
    `INSERT INTO payments (tenant_id, id, legal_entity_id, direction, status, payment_date, counterparty_id, currency, amount, money_account, description,
                           rate, rate_date, amount_uzs, request_id, request_hash, entry_id, posted_by_membership_id, bank_line_id, version)
     VALUES (:tenantId, :id, :legalEntityId, :direction, 'POSTED', :date, :counterpartyId, :currency, :amount, :moneyAccount, :description,
             CAST(:rate AS numeric), CAST(:rateDate AS date), :amountUzs, :requestId, :requestHash, :entryId, :postedBy, CAST(:bankLineId AS uuid), 1)`,
    { ...scope, ...payment },
  );
}

/** Records allocations of the payment (each moves its invoice's sum and the payment's), version + 1. */
export async function recordAllocations(
  tx: Tx,
  scope: CompanyScope,
  paymentId: string,
  allocations: Array<{ id: string; invoiceId: string; amount: string; amountUzs: string }>,
  date: string,
  entryId: string,
): Promise<void> {
  if (allocations.length === 0) return;
  const replacements = {
    ...scope,
    paymentId,
    date,
    entryId,
    ids: allocations.map((a) => a.id),
    invoiceIds: allocations.map((a) => a.invoiceId),
    amounts: allocations.map((a) => a.amount),
    uzs: allocations.map((a) => a.amountUzs),
  };
  await selectRows(
    tx,
    `WITH given AS (
       SELECT * FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:invoiceIds]::uuid[], ARRAY[:amounts]::numeric[], ARRAY[:uzs]::numeric[]) AS g(id, invoice_id, amount, amount_uzs)
     ), written AS (
       INSERT INTO payment_allocations (tenant_id, id, legal_entity_id, payment_id, invoice_id, amount, amount_uzs, allocation_date, entry_id)
       SELECT :tenantId, g.id, :legalEntityId, :paymentId, g.invoice_id, g.amount, g.amount_uzs, :date, :entryId FROM given g
       RETURNING 1
     ), invoices_moved AS (
       UPDATE invoices i SET allocated = i.allocated + g.amount, version = i.version + 1, updated_at = now()
         FROM given g WHERE i.tenant_id = :tenantId AND i.id = g.invoice_id
       RETURNING 1
     )
     UPDATE payments SET allocated = allocated + (SELECT sum(amount) FROM given), version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :paymentId`,
    replacements,
  );
}

/** Cancels the payment: its allocations released on `date`, their invoices' sums given back, version + 1. */
export async function markCancelled(tx: Tx, scope: CompanyScope, paymentId: string, cancellation: { entryId: string; date: string; reason: string; requestId: string }): Promise<void> {
  await selectRows(
    tx,
    `WITH released AS (
       UPDATE payment_allocations SET released_date = :date
        WHERE tenant_id = :tenantId AND payment_id = :paymentId AND released_date IS NULL
       RETURNING invoice_id, amount
     ), per_invoice AS (
       SELECT invoice_id, sum(amount) AS amount FROM released GROUP BY invoice_id
     ), invoices_freed AS (
       UPDATE invoices i SET allocated = i.allocated - r.amount, version = i.version + 1, updated_at = now()
         FROM per_invoice r WHERE i.tenant_id = :tenantId AND i.id = r.invoice_id
       RETURNING 1
     )
     UPDATE payments SET status = 'CANCELLED', allocated = 0, cancellation_entry_id = :entryId, cancellation_date = :date,
            cancellation_reason = :reason, cancellation_request_id = :requestId, version = version + 1, updated_at = now()
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND id = :paymentId AND status = 'POSTED'`,
    { ...scope, paymentId, ...cancellation },
  );
}

/** The invoices a payment's live allocations settle (to lock before a cancellation releases them). */
export async function allocatedInvoiceIds(tx: Tx, scope: CompanyScope, paymentId: string): Promise<string[]> {
  const rows = await selectRows<{ invoice_id: string }>(
    tx,
    'SELECT DISTINCT invoice_id FROM payment_allocations WHERE tenant_id = :tenantId AND payment_id = :paymentId AND released_date IS NULL',
    { tenantId: scope.tenantId, paymentId },
  );
  return rows.map((r) => r.invoice_id);
}

/** The last date an allocation to the invoice was released on (its payment cancelled), or null when none was. */
export async function lastReleaseOf(tx: Db, scope: CompanyScope, invoiceId: string): Promise<string | null> {
  const [row] = await selectRows<{ last_release: string | null }>(
    tx,
    `SELECT to_char(max(released_date), 'YYYY-MM-DD') AS last_release FROM payment_allocations
      WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND invoice_id = :invoiceId`,
    { ...scope, invoiceId },
  );
  return row?.last_release ?? null;
}

/** The entries a payment wrote (its own and its reclassifications), oldest first. */
export async function paymentEntryIds(tx: Tx, scope: CompanyScope, paymentId: string): Promise<string[]> {
  const rows = await selectRows<{ id: string }>(
    tx,
    `SELECT id FROM journal_entries WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND source_type = 'PAYMENT' AND source_id = :paymentId ORDER BY number`,
    { ...scope, paymentId },
  );
  return rows.map((r) => r.id);
}
