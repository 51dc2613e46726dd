// Exports a company's ledger as an hledger journal, so an independent tool can recompute its balances:
//   ACCESS_TOKEN=... node dist/tools/hledger-journal.js http://localhost:3000 <legalEntityId> > ledger.journal
// It reads the JSON pages of listJournalEntries and writes them with core/ledger/hledger.ts, the formatter the API's
// own journal export uses (GET .../entries with Accept: text/plain). core/ledger/hledger.ts explains the format and
// the hledger reports to run on it.
import { toHledgerJournal, type ExportedEntry } from '../core/ledger/hledger';

// The formatter stays importable from here: the cross-checks format JSON entries with it.
export { toHledgerJournal, type ExportedEntry };

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
