import { assetsOfInvoice } from '../../db/repositories/fixed-assets/assets';
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { lateMarker, selectBatch, type Statement, type Tx } from '../../db/connection';
import { postingContextOf, postingContextStatement, type PostingContext } from '../../db/repositories/ledger/journal';
import { DuplicateRowError } from '../../db/repositories/errors';
import {
  deleteDraft,
  draftContextOf,
  draftContextStatement,
  findInvoice,
  findInvoiceStatement,
  insertDraft,
  invoiceLinesOf,
  invoiceLinesStatement,
  invoicePostingContextStatement,
  listInvoices as listInvoiceRows,
  markCancelled,
  lineUzsStatement,
  markPostedStatement,
  replaceDraft,
  takeSalesNumberStatement,
  TAKEN_NUMBER,
  type DraftContent,
  type InvoiceFilter,
  type InvoiceLineRow,
  type InvoiceRow,
  type PostedRow,
} from '../../db/repositories/invoices/invoices';
import { lastReleaseOf } from '../../db/repositories/payments/payments';
import { recordedStartsOf, subscribedStatement, type RecordedStart } from '../../db/repositories/webhooks/events';
import {
  computeInvoice,
  DEFAULT_DOCUMENT_ACCOUNTS,
  documentCurrency,
  dueDateOf,
  invoiceEntryLines,
  uzsAmountsOf,
  type InvoiceKind,
  type InvoiceLine,
} from '../../core/invoices/invoices';
import { prepareEntry, prepareReversal, systemRequestId } from '../../core/ledger/journal';
import { currencyDecimals, FUNCTIONAL_CURRENCY } from '../../core/ledger/currency';
import { AppError } from '../../core/shared/problems';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScope, CompanyScopes, Opened } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { commitDocumentChange } from '../ledger/posting';
import { plannedEntryWrite, readPostingContext, storedRateOf, writeEntry, type EntryToWrite, type Written } from '../../services/ledger/posting';
import type { PostingGroups } from '../ledger/posting-groups';
import { companyOf, companyStatement } from '../../db/repositories/organisation/companies';
import { loadEntry } from '../../services/ledger/journal-entries';

type Invoice = Schemas['Invoice'];
type InvoiceCreate = Schemas['InvoiceCreate'];
type InvoiceUpdate = Schemas['InvoiceUpdate'];

const SUBJECT = 'INVOICE';
const accounts = DEFAULT_DOCUMENT_ACCOUNTS;

const inCurrency = (value: string, currency: string) => new Decimal(value).toFixed(currencyDecimals(currency));
const uzs = (value: string | null) => (value === null ? null : new Decimal(value).toFixed(2));

/** The status as the API shows it: a posted invoice with nothing outstanding is PAID. */
function statusOf(row: InvoiceRow): Invoice['status'] {
  if (row.status === 'POSTED' && new Decimal(row.allocated).equals(row.total_gross)) return 'PAID';
  return row.status;
}

function outstandingOf(row: InvoiceRow): string {
  if (row.status === 'CANCELLED') return inCurrency('0', row.currency);
  return inCurrency(new Decimal(row.total_gross).minus(row.allocated).toFixed(), row.currency);
}

function toInvoiceLine(l: InvoiceLineRow, currency: string): Invoice['lines'][number] {
  return {
    lineNo: l.line_no,
    description: l.description,
    quantity: new Decimal(l.quantity).toFixed(),
    unitPrice: new Decimal(l.unit_price).toFixed(),
    account: l.account_code,
    vatRate: l.vat_rate === null ? null : Number(new Decimal(l.vat_rate).toFixed()),
    catalogCode: l.catalog_code,
    net: inCurrency(l.net, currency),
    vat: inCurrency(l.vat, currency),
    gross: inCurrency(l.gross, currency),
    netUzs: uzs(l.net_uzs),
    vatUzs: uzs(l.vat_uzs),
  };
}

export function toInvoice(row: InvoiceRow, lines: InvoiceLineRow[]): Invoice {
  return {
    id: row.id,
    kind: row.kind,
    status: statusOf(row),
    number: row.number,
    date: row.invoice_date,
    dueDate: row.due_date,
    counterpartyId: row.counterparty_id,
    counterpartyName: row.counterparty_name,
    currency: row.currency,
    description: row.description,
    lines: lines.map((l) => toInvoiceLine(l, row.currency)),
    totalNet: inCurrency(row.total_net, row.currency),
    totalVat: inCurrency(row.total_vat, row.currency),
    totalGross: inCurrency(row.total_gross, row.currency),
    allocated: inCurrency(row.allocated, row.currency),
    outstanding: outstandingOf(row),
    rate: row.rate === null ? null : new Decimal(row.rate).toFixed(),
    rateDate: row.rate_date,
    grossUzs: uzs(row.gross_uzs),
    vatUzs: uzs(row.vat_uzs),
    entryId: row.entry_id,
    postedAt: row.posted_at ? row.posted_at.toISOString() : null,
    cancellation:
      row.cancellation_entry_id && row.cancellation_date && row.cancellation_reason
        ? { entryId: row.cancellation_entry_id, date: row.cancellation_date, reason: row.cancellation_reason }
        : null,
    version: Number(row.version),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function readInvoice(tx: Tx, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<InvoiceRow> {
  const row = await findInvoice(tx, scope, id, options);
  // Another company's or tenant's invoice is not there either: the caller learns nothing about it.
  if (!row) throw new AppError('not-found', 'No invoice with this id in this company');
  return row;
}

async function invoiceOf(tx: Tx, scope: CompanyScope, row: InvoiceRow): Promise<Invoice> {
  return toInvoice(row, await invoiceLinesOf(tx, scope, [row.id]));
}

const notDraft = (row: InvoiceRow, doing: string) =>
  new AppError('document-state', `The invoice is ${statusOf(row)}: ${doing}`, { documentStatus: statusOf(row) });

const supplierNumberTaken = (number: string) =>
  new AppError('supplier-number-exists', `An invoice of this supplier, not cancelled, has the number ${number}`, { number });

/**
 * Checks a draft's content against the company (its VAT setting, the counterparty, the chart) and computes
 * its amounts: one round trip for the checks.
 */
async function draftContent(tx: Tx, scope: CompanyScope, kind: InvoiceKind, input: InvoiceCreate | InvoiceUpdate): Promise<DraftContent> {
  if (kind === 'PURCHASE' && input.number === undefined) {
    throw new AppError('validation', "A purchase invoice carries the supplier's number", { errors: [{ path: '/body/number', message: "is required on a purchase invoice (the supplier's number)" }] });
  }
  if (kind === 'SALES' && input.number !== undefined) {
    throw new AppError('validation', 'A sales invoice is numbered when it is posted', { errors: [{ path: '/body/number', message: 'is assigned at posting on a sales invoice; leave it out' }] });
  }
  const currency = documentCurrency(input.currency);
  const codes = [...new Set(input.lines.map((l) => l.account ?? (kind === 'SALES' ? accounts.revenue : '')).filter((c) => c !== ''))];
  const [draftRow, chartRow] = await selectBatch<Record<string, unknown>>(tx, [
    draftContextStatement(scope, input.counterpartyId),
    postingContextStatement(scope, { requestId: randomUUID(), codes, subaccountIds: [], currencies: [], entryDate: input.date }),
  ]);
  const context = draftContextOf(draftRow!);
  const chart = postingContextOf([chartRow!]);
  if (!context.counterparty || context.counterparty.archived) {
    const message = context.counterparty ? 'the counterparty is archived' : 'no counterparty with this id in this company';
    throw new AppError('unknown-counterparty', message, { errors: [{ path: '/body/counterpartyId', message }] });
  }
  const amounts = computeInvoice(kind, input.lines, currency, context.vat, accounts);
  const unknown = amounts.lines.flatMap((l, i) =>
    chart.knownCodes.has(l.account) ? [] : [{ path: `/body/lines/${i}/account`, message: `no account ${l.account} in this company's chart` }],
  );
  if (unknown.length > 0) throw new AppError('unknown-account', unknown.map((e) => e.message).join('; '), { errors: unknown });
  const headers = amounts.lines.flatMap((l, i) => {
    const details = chart.headerDetails.get(l.account);
    return details ? [{ path: `/body/lines/${i}/account`, message: `line ${i + 1}: ${l.account} is a header account; use one of its detail accounts (${details.join(', ')})` }] : [];
  });
  if (headers.length > 0) throw new AppError('header-account', headers.map((e) => e.message).join('; '), { errors: headers });
  return {
    number: input.number ?? null,
    invoiceDate: input.date,
    dueDate: dueDateOf(input.date, input.dueDate, context.counterparty.paymentTermsDays),
    counterpartyId: input.counterpartyId,
    currency,
    description: input.description ?? null,
    totalNet: amounts.totalNet,
    totalVat: amounts.totalVat,
    totalGross: amounts.totalGross,
    lines: amounts.lines,
  };
}

/** A stored line as the posting needs it. */
const postingLineOf = (l: InvoiceLineRow): InvoiceLine => ({
  lineNo: l.line_no,
  description: l.description,
  quantity: l.quantity,
  unitPrice: l.unit_price,
  account: l.account_code,
  vatRate: l.vat_rate,
  catalogCode: l.catalog_code,
  net: l.net,
  vat: l.vat,
  gross: l.gross,
});

function eventData(scope: CompanyScope, row: InvoiceRow, number: string, entryId: string) {
  return {
    invoiceId: row.id,
    legalEntityId: scope.legalEntityId,
    kind: row.kind,
    number,
    date: row.invoice_date,
    counterpartyId: row.counterparty_id,
    currency: row.currency,
    totalGross: inCurrency(row.total_gross, row.currency),
    entryId,
  };
}

/** Sales and purchase invoices: drafts, their posting into the ledger and their cancellation. */
/** An invoice's posting planned from the invoice held: answered as it is, or the entry to write and its answer. */
type InvoicePostingPlan =
  | { answered: Invoice }
  | { context: PostingContext; entry: EntryToWrite; answer(written: Written): { result: Invoice; starts: RecordedStart[] } };

export function createInvoices({ companies, webhookEvents, postingGroups }: { companies: CompanyScopes; webhookEvents: WebhookEvents; postingGroups: PostingGroups }) {
  async function listInvoices(
    principal: Principal,
    legalEntityId: string,
    query: PageQuery & Omit<InvoiceFilter, 'limit' | 'offset'>,
  ): Promise<Schemas['InvoicePage']> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const { rows, total } = await listInvoiceRows(tx, scope, { ...query, limit: query.size, offset: query.page * query.size });
      const lines = await invoiceLinesOf(tx, scope, rows.map((r) => r.id));
      const byInvoice = new Map<string, InvoiceLineRow[]>();
      for (const l of lines) byInvoice.set(l.invoice_id, [...(byInvoice.get(l.invoice_id) ?? []), l]);
      return pageOf(rows.map((r) => toInvoice(r, byInvoice.get(r.id) ?? [])), query, total);
    });
  }

  async function getInvoice(principal: Principal, legalEntityId: string, id: string): Promise<Invoice> {
    return companies.read(principal, legalEntityId, async (tx, scope) => invoiceOf(tx, scope, await readInvoice(tx, scope, id)));
  }

  async function createInvoice(principal: Principal, legalEntityId: string, input: InvoiceCreate, ctx: RequestContext): Promise<Invoice> {
    try {
      return await companies.change(principal, legalEntityId, async (tx, scope) => {
        const content = await draftContent(tx, scope, input.kind, input);
        const id = randomUUID();
        await insertDraft(tx, scope, { ...content, id, kind: input.kind, createdBy: principal.membershipId });
        await recordCallerEvent(tx, principal, ctx, {
          action: 'invoice.created',
          subjectType: SUBJECT,
          subjectId: id,
          details: `${input.kind} draft, ${content.lines.length} lines, total ${content.totalGross} ${content.currency}`,
        });
        return invoiceOf(tx, scope, (await findInvoice(tx, scope, id))!);
      });
    } catch (err) {
      if (err instanceof DuplicateRowError && err.constraint === 'invoices_supplier_number_key') throw supplierNumberTaken(input.number!);
      throw err;
    }
  }

  async function updateInvoice(principal: Principal, legalEntityId: string, id: string, input: InvoiceUpdate, ctx: RequestContext): Promise<Invoice> {
    try {
      return await companies.change(
        principal,
        legalEntityId,
        async (tx, scope) => {
          // Held until commit: a posting or another edit of this draft waits, then sees this one.
          const current = await readInvoice(tx, scope, id, { lock: true });
          if (current.status !== 'DRAFT') throw notDraft(current, 'a posted invoice is never edited; cancel it instead');
          if (Number(current.version) !== input.expectedVersion) {
            throw new AppError('stale-version', `The invoice changed since version ${input.expectedVersion}; reload it and retry`);
          }
          const content = await draftContent(tx, scope, current.kind, input);
          await replaceDraft(tx, scope, id, input.expectedVersion, content);
          await recordCallerEvent(tx, principal, ctx, {
            action: 'invoice.updated',
            subjectType: SUBJECT,
            subjectId: id,
            details: `version ${input.expectedVersion + 1}, ${content.lines.length} lines, total ${content.totalGross} ${content.currency}`,
          });
          return invoiceOf(tx, scope, (await findInvoice(tx, scope, id))!);
        },
        async (tx, scope) => {
          await readInvoice(tx, scope, id);
        },
      );
    } catch (err) {
      if (err instanceof DuplicateRowError && err.constraint === 'invoices_supplier_number_key') throw supplierNumberTaken(input.number!);
      throw err;
    }
  }

  async function deleteInvoice(principal: Principal, legalEntityId: string, id: string, ctx: RequestContext): Promise<void> {
    await companies.change(
      principal,
      legalEntityId,
      async (tx, scope) => {
        const current = await readInvoice(tx, scope, id, { lock: true });
        if (current.status !== 'DRAFT' || !(await deleteDraft(tx, scope, id))) throw notDraft(current, 'a posted invoice is never deleted; cancel it instead');
        await recordCallerEvent(tx, principal, ctx, { action: 'invoice.deleted', subjectType: SUBJECT, subjectId: id, details: `${current.kind} draft` });
      },
      async (tx, scope) => {
        await readInvoice(tx, scope, id);
      },
    );
  }

  /** The invoice held until commit and its lines, read in a transaction's opening. */
  const heldInvoice = (scope: CompanyScope, id: string): Statement[] => [findInvoiceStatement(scope, id, { lock: true }), invoiceLinesStatement(scope, [id])];

  /**
   * A change of one invoice that posts an entry: the invoice found (404, even in an archived company) and held
   * until commit, read with its lines in the transaction's opening (no round trip of its own), with the
   * caller's own `opening` statements, whose rows `work` gets.
   */
  const postingChange = (
    principal: Principal,
    legalEntityId: string,
    id: string,
    work: (tx: Tx, scope: CompanyScope, current: InvoiceRow, lines: InvoiceLineRow[], opened: Opened) => Promise<{ result: Invoice; starts: RecordedStart[] }>,
    opening: (scope: CompanyScope) => Statement[] = () => [],
  ): Promise<Invoice> =>
    commitDocumentChange(
      { companies, webhookEvents },
      principal,
      legalEntityId,
      async (tx, scope, [[row], lines, ...opened]) => work(tx, scope, row as unknown as InvoiceRow, lines as unknown as InvoiceLineRow[], opened),
      {
        statements: (scope) => [...heldInvoice(scope, id), ...opening(scope)],
        found: ([[row]]) => {
          // Another company's or tenant's invoice is not there either: the caller learns nothing about it.
          if (!row) throw new AppError('not-found', 'No invoice with this id in this company');
        },
      },
    );

  /**
   * Posts an invoice through its company's group commit (api/ledger/posting-groups.ts), with the journal
   * entries and the other invoices the company posts at the same moment: the group reads the company, the
   * invoice held with its lines, the webhook subscription and the posting's checks in its opening. An invoice
   * the group cannot take (not found, an archived company, a refused check) is posted alone, as before.
   */
  async function postInvoice(principal: Principal, legalEntityId: string, id: string, ctx: RequestContext): Promise<Invoice> {
    const scope: CompanyScope = { tenantId: principal.tenantId, legalEntityId };
    const requestId = systemRequestId(`invoice-posting:${scope.tenantId}:${id}`);
    const opening = [
      subscribedStatement(scope, 'invoice.posted'),
      invoicePostingContextStatement(scope, id, {
        requestId,
        accounts: [accounts.receivable, accounts.payable, accounts.outputVat, accounts.inputVat],
        functionalCurrency: FUNCTIONAL_CURRENCY,
      }),
    ];
    /**
     * The posting of the invoice held: its answer as it is (posted already), or the entry to write with its
     * checks' context and the answer from what the entry's round trip wrote.
     */
    const planOf = (current: InvoiceRow, currentLines: InvoiceLineRow[], [[subscription], contextRows]: Opened): InvoicePostingPlan => {
      // Posting is idempotent: a posted (or paid) invoice is answered as it is.
      if (current.status === 'POSTED') return { answered: toInvoice(current, currentLines) };
      if (current.status !== 'DRAFT') throw notDraft(current, 'a cancelled invoice is not posted again; draft a new one');
      // The posting's checks were read with the invoice, the CBU rate of its date among them.
      const context = postingContextOf(contextRows!);
      const rate = storedRateOf(context, current.currency, current.invoice_date);
      const lines = currentLines.map(postingLineOf);
      const amounts = { lines, totalNet: current.total_net, totalVat: current.total_vat, totalGross: current.total_gross };
      const converted = uzsAmountsOf(amounts, rate?.rate ?? null);
      const toPost = { kind: current.kind, counterpartyId: current.counterparty_id, currency: current.currency, totalGross: current.total_gross, lines };
      const entryLines = invoiceEntryLines(toPost, converted, rate, accounts);
      const prepare = (number: string) =>
        prepareEntry({
          entryDate: current.invoice_date,
          description: `${current.kind === 'SALES' ? 'Sales invoice' : 'Purchase invoice'} ${number}, ${current.counterparty_name}`.slice(0, 500),
          reference: number,
          lines: entryLines.map((l) => ({
            accountCode: l.accountCode,
            counterpartyId: l.counterpartyId,
            debit: l.debit,
            credit: l.credit,
            ...(l.currency ? { currency: l.currency, currencyAmount: l.currencyAmount!, rate: l.rate!, rateSource: 'CBU' as const } : {}),
          })),
        });
      const subscribed = (subscription as { subscribed: boolean } | undefined)?.subscribed === true;
      // A sales invoice's number is taken in the entry's own round trip, just before the ledger's row, so the
      // company's counter row is held as briefly as its ledger row: until then its texts carry a marker the
      // batch replaces with the number taken (LateText).
      const sales = current.kind === 'SALES';
      const late = sales ? { number: lateMarker(), sequence: lateMarker() } : null;
      const number = late ? late.number : current.number!;
      const prepared = prepare(number);
      const entryId = randomUUID();
      const posted = {
        number,
        sequenceYear: sales ? Number(current.invoice_date.slice(0, 4)) : null,
        sequenceNumber: late ? late.sequence : null,
        rate: rate?.rate ?? null,
        rateDate: rate?.rateDate ?? null,
        grossUzs: converted.grossUzs,
        vatUzs: converted.vatUzs,
        lineUzs: converted.lines,
        entryId,
        postedBy: principal.membershipId,
      };
      // The entry, the invoice's posting, its webhook event and the invoice as it now is: one round trip.
      const entry: EntryToWrite = {
        id: entryId,
        requestId,
        prepared,
        source: { type: 'INVOICE', id },
        audit: {
          action: 'invoice.posted',
          subjectType: SUBJECT,
          subjectId: id,
          details: `${current.kind} ${number}, total ${inCurrency(current.total_gross, current.currency)} ${current.currency}`,
        },
        event: null,
        // The lines' UZS amounts first, before the company's counters are taken: the counters are held to
        // commit, and every posting of the company waits for them.
        before: [lineUzsStatement(scope, id, posted), ...(late ? [takeSalesNumberStatement(scope, posted.sequenceYear!)] : [])],
        ...(late
          ? {
              late: [
                { marker: late.number, expression: TAKEN_NUMBER.formatted },
                { marker: late.sequence, expression: TAKEN_NUMBER.sequence },
              ],
            }
          : {}),
        // The webhook event only when someone subscribed (read with the invoice): it stays out of the company's hold.
        after: [
          markPostedStatement(scope, id, posted),
          ...(subscribed ? [webhookEvents.statement(scope.tenantId, { type: 'invoice.posted', data: eventData(scope, current, number, entryId) })] : []),
        ],
      };
      const answer = (written: Written): { result: Invoice; starts: RecordedStart[] } => {
        // The invoice row is held, and a draft has no entry: nothing can have posted it before.
        if (written.replayed) throw new Error(`invoice ${id}: its posting entry exists while it is a draft`);
        const [[updated], event] = written.after;
        // The answer is the invoice held, with what its posting wrote: no read back.
        const { number: taken, version, posted_at, updated_at } = updated as unknown as PostedRow;
        const row: InvoiceRow = { ...current, status: 'POSTED', number: taken, rate: posted.rate, rate_date: posted.rateDate, gross_uzs: posted.grossUzs, vat_uzs: posted.vatUzs, entry_id: entryId, posted_at, version, updated_at };
        const postedLines = currentLines.map((l, i) => ({ ...l, net_uzs: posted.lineUzs[i]!.netUzs, vat_uzs: posted.lineUzs[i]!.vatUzs }));
        return { result: toInvoice(row, postedLines), starts: event ? recordedStartsOf(event[0]!) : [] };
      };
      return { context, entry, answer };
    };
    const alone = () =>
      postingChange(
        principal,
        legalEntityId,
        id,
        async (tx, _scope, current, currentLines, opened) => {
          const plan = planOf(current, currentLines, opened);
          if ('answered' in plan) return { result: plan.answered, starts: [] };
          return plan.answer(await writeEntry(tx, principal, scope, ctx, plan.context, plan.entry));
        },
        () => opening,
      );
    return postingGroups.post<Invoice>({
      scope,
      key: `invoice:${id}`,
      opening: [companyStatement(scope, { forChange: true }), ...heldInvoice(scope, id), ...opening],
      plan: ([found, [row], lines, ...opened]) => {
        // No company, another company's invoice, an archived company: answered alone (404, 404, 409).
        const company = companyOf(found!);
        if (!company || company.archived || !row) return null;
        const plan = planOf(row as unknown as InvoiceRow, lines as unknown as InvoiceLineRow[], opened);
        if ('answered' in plan) return { statements: [], answer: () => ({ result: plan.answered, starts: [] }) };
        const write = plannedEntryWrite(principal, scope, ctx, plan.context, plan.entry);
        if (!write) return null;
        return { statements: write.statements, late: write.late, answer: (results) => plan.answer(write.answer(results)) };
      },
      alone,
    });
  }

  async function cancelInvoice(principal: Principal, legalEntityId: string, id: string, input: Schemas['DocumentCancellation'], ctx: RequestContext): Promise<Invoice> {
    return postingChange(principal, legalEntityId, id, async (tx, scope, current) => {
      if (current.status === 'CANCELLED') {
        // The same request again is answered with what it did; another cancellation has nothing left to do.
        if (current.cancellation_request_id === input.requestId) return { result: await invoiceOf(tx, scope, current), starts: [] };
        throw notDraft(current, 'it is cancelled already');
      }
      if (current.status === 'DRAFT') throw notDraft(current, 'a draft is deleted, not cancelled');
      const assets = await assetsOfInvoice(tx, scope, id);
      if (assets.length > 0) {
        const named = assets.map((a) => `line ${a.lineNo} is the cost of fixed asset ${a.inventoryNumber}`).join(', ');
        throw new AppError('document-state', `The invoice cannot be cancelled: ${named} (a draft asset may be changed to leave the line out)`, { documentStatus: current.status });
      }
      if (!new Decimal(current.allocated).isZero()) {
        throw new AppError('document-has-allocations', `Payments of ${inCurrency(current.allocated, current.currency)} ${current.currency} are allocated to the invoice; cancel them first`);
      }
      if (input.date < current.invoice_date) {
        throw new AppError('validation', 'A cancellation cannot be dated before the invoice', { errors: [{ path: '/body/date', message: `must be on or after ${current.invoice_date}` }] });
      }
      // Until a released allocation's release the invoice was settled by it: cancelled before, it would be settled and cancelled at once.
      const released = await lastReleaseOf(tx, scope, id);
      if (released !== null && input.date < released) {
        throw new AppError('validation', 'A cancellation cannot be dated before a payment allocated to the invoice was cancelled', {
          errors: [{ path: '/body/date', message: `must be on or after ${released}, when the last payment allocated to the invoice was cancelled` }],
        });
      }
      const original = (await loadEntry(tx, scope, { id: current.entry_id! }))!;
      const prepared = prepareReversal(original, { entryDate: input.date, reason: `cancellation of invoice ${current.number}: ${input.reason}` });
      const requestId = systemRequestId(`invoice-cancellation:${scope.tenantId}:${id}`);
      const entryId = randomUUID();
      const written = await writeEntry(tx, principal, scope, ctx, await readPostingContext(tx, scope, requestId, prepared), {
        id: entryId,
        requestId,
        prepared,
        source: { type: 'INVOICE', id },
        audit: { action: 'invoice.cancelled', subjectType: SUBJECT, subjectId: id, details: `${current.kind} ${current.number}, dated ${input.date}` },
        event: null,
      });
      if (written.replayed) throw new Error(`invoice ${id}: its cancellation entry exists while it is posted`);
      await markCancelled(tx, scope, id, { entryId, date: input.date, reason: input.reason, requestId: input.requestId });
      const starts = await webhookEvents.record(tx, scope.tenantId, { type: 'invoice.cancelled', data: eventData(scope, current, current.number!, entryId) });
      return { result: await invoiceOf(tx, scope, (await findInvoice(tx, scope, id))!), starts };
    });
  }

  return { listInvoices, getInvoice, createInvoice, updateInvoice, deleteInvoice, postInvoice, cancelInvoice };
}
