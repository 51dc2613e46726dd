// Exports a company's ledger as an hledger journal, so an independent tool can recompute its balances:
//   ACCESS_TOKEN=... node dist/tools/hledger-journal.js http://localhost:3000 <legalEntityId> > ledger.journal
//   hledger -f ledger.journal balance --flat -E
// Accounts are the four-digit codes (`5110`, or `5110:<subaccountId>`); debits are positive.

export interface ExportedEntry {
  number: number;
  entryDate: string;
  description: string;
  lines: Array<{ accountCode: string; subaccountId: string | null; debit: string; credit: string }>;
}

/** One hledger transaction per entry, in journal order. Descriptions lose characters hledger would read as syntax. */
export function toHledgerJournal(entries: ExportedEntry[]): string {
  return entries
    .map((e) => {
      const description = e.description.replace(/[\r\n;|]/g, ' ').trim();
      const postings = e.lines.map((l) => {
        const account = l.subaccountId ? `${l.accountCode}:${l.subaccountId}` : l.accountCode;
        const amount = l.debit !== '0.00' ? l.debit : `-${l.credit}`;
        return `    ${account}  ${amount}`;
      });
      return [`${e.entryDate} (#${e.number}) ${description}`, ...postings].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

async function main(): Promise<void> {
  const [baseUrl, legalEntityId] = process.argv.slice(2);
  const token = process.env.ACCESS_TOKEN;
  if (!baseUrl || !legalEntityId || !token) {
    process.stderr.write('usage: ACCESS_TOKEN=<token> node dist/tools/hledger-journal.js <base url> <legalEntityId>\n');
    process.exit(2);
  }
  const entries: ExportedEntry[] = [];
  for (let page = 0; ; page++) {
    const res = await fetch(`${baseUrl}/api/v1/ledger/${legalEntityId}/entries?page=${page}&size=100`, { headers: { Authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`GET entries answered ${res.status}`);
    const body = (await res.json()) as { items: ExportedEntry[]; totalPages: number };
    entries.push(...body.items);
    if (page + 1 >= body.totalPages) break;
  }
  process.stdout.write(toHledgerJournal(entries));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
}
