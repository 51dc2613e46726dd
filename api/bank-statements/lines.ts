import type { Tx } from '../../db/connection';
import type { RecordedStart } from '../../db/repositories/webhooks/events';
import { requestHash, systemRequestId, type PreparedEntry } from '../../core/ledger/journal';
import { toMinorUnits } from '../../core/ledger/money';
import { findLine, listLines, markLineUnmatched, type BankLineRow, type LineFilter } from '../../db/repositories/bank-statements/statements';
import { findPayment, lockInvoices } from '../../db/repositories/payments/payments';
import { AppError } from '../../core/shared/problems';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { commitDocumentChange } from '../ledger/posting';
import { loadEntry } from '../../services/ledger/journal-entries';
import { cancelPaymentIn } from '../../services/payments/payments';
import { BANK_LINE_SUBJECT, matchLineIn, proposalMatch, writeLineEntry, type LineMatch } from '../../services/bank-statements/lines';
import { requireBankAccount } from './statements';

type BankLine = Schemas['BankLine'];

function toLine(row: BankLineRow, currency: string): BankLine {
  return {
    id: row.id,
    bankAccountId: row.bankAccountId,
    importId: row.importId,
    date: row.date,
    direction: row.direction,
    amount: row.amount,
    currency,
    reference: row.reference,
    counterpartyName: row.counterpartyName,
    counterpartyTin: row.counterpartyTin,
    counterpartyAccount: row.counterpartyAccount,
    counterpartyBankCode: row.counterpartyBankCode,
    purpose: row.purpose,
    documentNumber: row.documentNumber,
    status: row.status,
    proposal: row.proposal && {
      type: row.proposal.type,
      counterpartyId: row.proposal.type === 'SETTLE_INVOICES' ? row.proposal.counterpartyId : null,
      allocations: row.proposal.type === 'SETTLE_INVOICES' ? row.proposal.allocations : [],
      accountCode: row.proposal.type === 'POST_TO_ACCOUNT' ? row.proposal.accountCode : null,
      ruleId: row.proposal.ruleId ?? null,
      reason: row.proposal.reason,
    },
    paymentId: row.paymentId,
    entryId: row.entryId,
    matchedAt: row.matchedAt?.toISOString() ?? null,
  };
}

async function requireLine(tx: Tx, scope: CompanyScope, bankAccountId: string, lineId: string, options: { lock?: boolean } = {}): Promise<BankLineRow> {
  const line = await findLine(tx, scope, { bankAccountId, id: lineId }, options);
  if (!line) throw new AppError('not-found', 'No line with this id on this bank account');
  return line;
}

/** The account and its line, in this company: what a match or an unmatch is about, checked first (404 otherwise). */
const lineTarget = (bankAccountId: string, lineId: string) => async (tx: Tx, scope: CompanyScope) => {
  await requireBankAccount(tx, scope, bankAccountId);
  await requireLine(tx, scope, bankAccountId, lineId);
};

/** The lines of the account's statements, and their matching to invoices through payments. */
export function createBankLines(deps: { companies: CompanyScopes; webhookEvents: WebhookEvents }) {
  const { companies } = deps;

  async function listBankLines(
    principal: Principal,
    legalEntityId: string,
    bankAccountId: string,
    query: PageQuery & Omit<LineFilter, 'bankAccountId' | 'limit' | 'offset'>,
  ): Promise<Schemas['BankLinePage']> {
    return companies.read(principal, legalEntityId, async (tx, scope) => {
      const account = await requireBankAccount(tx, scope, bankAccountId);
      const { rows, total } = await listLines(tx, scope, { ...query, bankAccountId, limit: query.size, offset: query.page * query.size });
      return pageOf(
        rows.map((r) => toLine(r, account.currency)),
        query,
        total,
      );
    });
  }

  /** What a match asks for: invoices of a counterparty (or an advance), or an account to post the line to. */
  async function matchOf(
    tx: Tx,
    scope: CompanyScope,
    line: BankLineRow,
    input: Schemas['BankLineMatch'],
  ): Promise<LineMatch> {
    const given = [input.acceptProposal !== undefined, input.allocations !== undefined, input.accountCode !== undefined].filter(Boolean).length;
    if (given !== 1) {
      throw new AppError('validation', 'Give acceptProposal, allocations or accountCode', {
        errors: [{ path: '/body', message: 'must have exactly one of acceptProposal, allocations and accountCode' }],
      });
    }
    if (input.counterpartyId !== undefined && input.allocations === undefined) {
      throw new AppError('validation', 'counterpartyId goes with allocations', { errors: [{ path: '/body/counterpartyId', message: 'only with allocations' }] });
    }
    if (input.accountCode !== undefined) return { kind: 'account', accountCode: input.accountCode };
    if (input.acceptProposal) {
      if (!line.proposal) throw new AppError('bank-line-no-proposal', 'The line has no proposal: name the invoices to settle or the account to post to');
      return proposalMatch(line.proposal);
    }
    const allocations = input.allocations!;
    if (input.counterpartyId) return { kind: 'payment', counterpartyId: input.counterpartyId, allocations };
    if (allocations.length === 0) {
      throw new AppError('validation', 'Name the counterparty of an advance', { errors: [{ path: '/body/counterpartyId', message: 'is required when allocations are empty' }] });
    }
    // The counterparty is the invoices' (the payment's checks refuse invoices of several).
    const first = (await lockInvoices(tx, scope, [allocations[0]!.invoiceId])).get(allocations[0]!.invoiceId);
    if (!first) throw new AppError('validation', 'No invoice with this id in this company', { errors: [{ path: '/body/allocations/0/invoiceId', message: 'no invoice with this id in this company' }] });
    return { kind: 'payment', counterpartyId: first.counterpartyId, allocations };
  }

  async function matchBankLine(
    principal: Principal,
    legalEntityId: string,
    bankAccountId: string,
    lineId: string,
    input: Schemas['BankLineMatch'],
    ctx: RequestContext,
  ): Promise<BankLine> {
    return commitDocumentChange(
      deps,
      principal,
      legalEntityId,
      async (tx, scope) => {
        const account = await requireBankAccount(tx, scope, bankAccountId);
        // Held until commit: two confirmations of one line are one payment and one 409.
        const line = await requireLine(tx, scope, bankAccountId, lineId, { lock: true });
        if (line.status === 'MATCHED') throw new AppError('bank-line-matched', 'The line is matched already: unmatch it first', { paymentId: line.paymentId });
        const match = await matchOf(tx, scope, line, input);
        const { starts } = await matchLineIn(tx, principal, scope, ctx, deps.webhookEvents, { line, account, match });
        const matched = (await findLine(tx, scope, { bankAccountId, id: lineId }))!;
        return { result: toLine(matched, account.currency), starts };
      },
      lineTarget(bankAccountId, lineId),
    );
  }

  async function unmatchBankLine(principal: Principal, legalEntityId: string, bankAccountId: string, lineId: string, ctx: RequestContext): Promise<BankLine> {
    return commitDocumentChange(
      deps,
      principal,
      legalEntityId,
      async (tx, scope) => {
        const account = await requireBankAccount(tx, scope, bankAccountId);
        const line = await requireLine(tx, scope, bankAccountId, lineId, { lock: true });
        if (line.status !== 'MATCHED') throw new AppError('bank-line-not-matched', 'The line is not matched');
        let starts: RecordedStart[] = [];
        let undone: string;
        if (line.paymentId) {
          const payment = (await findPayment(tx, scope, { id: line.paymentId }))!;
          ({ starts } = await cancelPaymentIn(tx, principal, scope, ctx, deps.webhookEvents, payment.id, {
            requestId: systemRequestId(`bank-line-unmatch:${scope.tenantId}:${line.id}:${line.version}`),
            // Dated as the payment: the invoices it settled are open again from that day, as if never matched.
            date: payment.payment_date,
            reason: `Unmatched from its bank line of ${line.date}`,
          }));
          undone = `payment ${payment.id} cancelled`;
        } else {
          // The line's own entry, mirrored on the line's date: it is as if the line had never been posted.
          const entry = (await loadEntry(tx, scope, { id: line.entryId! }))!;
          const mirrored = entry.lines.map((l, i) => ({ ...l, debit: l.credit, credit: l.debit, lineNo: i + 1 }));
          const prepared: PreparedEntry = {
            entryDate: line.date,
            description: `Reversal: bank line of ${line.date} unmatched`.slice(0, 500),
            reference: null,
            lines: mirrored,
            total: mirrored.reduce((sum, l) => sum + toMinorUnits(l.debit), 0n),
            hash: requestHash({ unmatchOf: line.id, entryId: entry.id }),
            reversalOf: entry.id,
          };
          const reversal = await writeLineEntry(tx, principal, scope, ctx, line, prepared, `bank-line-unmatch:${scope.tenantId}:${line.id}:${line.version}`, `unmatched: entry ${entry.id} reversed`);
          undone = `entry ${entry.id} reversed by ${reversal}`;
        }
        await markLineUnmatched(tx, scope, line.id);
        await recordCallerEvent(tx, principal, ctx, {
          action: 'bank-line.unmatched',
          subjectType: BANK_LINE_SUBJECT,
          subjectId: line.id,
          details: `${line.direction} ${line.amount} ${account.currency} of ${line.date}: ${undone}`,
        });
        const unmatched = (await findLine(tx, scope, { bankAccountId, id: lineId }))!;
        return { result: toLine(unmatched, account.currency), starts };
      },
      lineTarget(bankAccountId, lineId),
    );
  }

  return { listBankLines, matchBankLine, unmatchBankLine };
}
