import type { Tx } from '../../db/connection';
import { findEntry, linesOf, type EntryRow, type LedgerScope, type LineRow } from '../../db/repositories/ledger/journal';
import type { components } from '../../contracts/openapi';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { formatForeignAmount } from '../../core/ledger/currency';
import { canonical } from '../../core/rates/rates';

// Journal entries as the API shows them, read inside a caller's transaction.

type JournalEntry = components['schemas']['JournalEntry'];

/** A NUMERIC(20, 2) as the API writes it; PostgreSQL's text of one is that already (an export reads millions). */
const CANONICAL_MONEY = /^-?(?:0|[1-9][0-9]*)\.[0-9]{2}$/;
const money = (numeric: string) => (CANONICAL_MONEY.test(numeric) ? numeric : formatMinorUnits(numericToMinorUnits(numeric)));

/** A stored line as the API shows it: UZS amounts with two decimals, a foreign amount in its currency's decimals. */
export function toJournalLine(l: LineRow): JournalEntry['lines'][number] {
  return {
    lineNo: l.line_no,
    accountCode: l.account_code,
    subaccountId: l.subaccount_id,
    counterpartyId: l.counterparty_id ?? null,
    debit: money(l.debit),
    credit: money(l.credit),
    memo: l.memo,
    currency: l.currency,
    currencyAmount: l.currency && l.currency_amount !== null ? formatForeignAmount(l.currency_amount, l.currency) : null,
    rate: l.rate === null ? null : canonical(l.rate),
    rateSource: l.rate_source,
    rateDate: l.rate_date,
  };
}

export function toJournalEntry(row: EntryRow, lines: LineRow[]): JournalEntry {
  return {
    id: row.id,
    number: Number(row.number),
    entryDate: row.entry_date,
    description: row.description,
    reference: row.reference,
    kind: row.kind,
    source: row.source_type && row.source_id ? { type: row.source_type, id: row.source_id } : null,
    lines: lines.map(toJournalLine),
    totalDebit: money(row.total_debit),
    totalCredit: money(row.total_credit),
    reversalOf: row.reversal_of,
    reversedBy: row.reversed_by,
    postedAt: row.posted_at.toISOString(),
    postedByMembershipId: row.posted_by_membership_id,
    correlationId: row.correlation_id,
  };
}

/** One entry with its lines, by id or by the requestId that posted it. */
export async function loadEntry(tx: Tx, scope: LedgerScope, by: { id: string } | { requestId: string }): Promise<JournalEntry | null> {
  const row = await findEntry(tx, scope, by);
  return row ? toJournalEntry(row, await linesOf(tx, scope, [row.id])) : null;
}
