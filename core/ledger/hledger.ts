// A company's journal as an hledger journal, so an independent tool can recompute its balances:
//   hledger -f ledger.journal balance --flat -E --cost                 the UZS balances (the trial balance)
//   hledger -f ledger.journal balance --flat -E                        the balances per commodity (currencies)
//   hledger -f ledger.journal balance --flat -E --cost tag:currency=USD  the UZS carrying amounts of the USD balances
// Accounts are the four-digit codes (`5110`, or `5110:<subaccountId>`); debits are positive.
//
// Every amount names its commodity. A UZS line is `UZS 1250.00`. A foreign line is its foreign amount at its
// total UZS price, `USD 100.00 @@ UZS 1285012.00` (a credit `USD -100.00 @@ UZS 1285012.00`: hledger gives a
// total price the sign of the amount), so hledger balances the entry in UZS as we do, `--cost` gives the UZS
// balances and the plain report the foreign ones. A revaluation line (a foreign amount of zero) changes only
// the UZS carrying amount: it is a UZS posting on that account. Foreign and revaluation lines carry the tag
// `currency:<code>`, so a report filtered on it gives the carrying amounts of one currency.
//
// Written by the journal export (listJournalEntries with Accept: text/plain) one entry at a time, and by
// tools/hledger-journal.ts from the JSON pages.

export interface ExportedEntry {
  number: number;
  entryDate: string;
  description: string;
  lines: Array<{
    accountCode: string;
    subaccountId: string | null;
    debit: string;
    credit: string;
    /** Absent or null: a UZS line. */
    currency?: string | null;
    /** The amount in `currency`; zero on a revaluation line. */
    currencyAmount?: string | null;
  }>;
}

/** The hledger amount of one line, debit positive, with the tag of its currency when it has one. */
function hledgerAmount(line: ExportedEntry['lines'][number]): string {
  const debit = line.debit !== '0.00';
  const uzs = debit ? line.debit : line.credit;
  const sign = debit ? '' : '-';
  if (!line.currency) return `UZS ${sign}${uzs}`;
  const tag = `  ; currency:${line.currency}`;
  if (!/[1-9]/.test(line.currencyAmount ?? '0')) return `UZS ${sign}${uzs}${tag}`;
  return `${line.currency} ${sign}${line.currencyAmount} @@ UZS ${uzs}${tag}`;
}

/** One entry as an hledger transaction (no trailing newline). The description loses characters hledger would read as syntax. */
export function hledgerTransaction(e: ExportedEntry): string {
  const description = e.description.replace(/[\r\n;|]/g, ' ').trim();
  const postings = e.lines.map((l) => {
    const account = l.subaccountId ? `${l.accountCode}:${l.subaccountId}` : l.accountCode;
    return `    ${account}  ${hledgerAmount(l)}`;
  });
  return [`${e.entryDate} (#${e.number}) ${description}`, ...postings].join('\n');
}

/** One hledger transaction per entry, in the order given, a blank line between them. */
export function toHledgerJournal(entries: ExportedEntry[]): string {
  return entries.map(hledgerTransaction).join('\n\n').concat('\n');
}
