import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { entryBody, ledgerApi, waitForClose } from '../../helpers/ledger';
import { toHledgerJournal, type ExportedEntry } from '../../../tools/hledger-journal';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/money';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

/** `hledger balance` per top-level account (debit-positive), as of a date, from the exported journal. */
function hledgerBalances(journal: string, asOf: string): Map<string, bigint> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hledger-'));
  const file = path.join(dir, 'ledger.journal');
  writeFileSync(file, journal);
  const end = new Date(Date.parse(`${asOf}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const csv = execFileSync('hledger', ['-f', file, 'balance', '--flat', '--depth', '1', '-E', '-e', end, '-O', 'csv', '--no-total'], { encoding: 'utf8' });
  const rows = csv.trim().split('\n').slice(1).map((line) => line.split(',').map((cell) => cell.replace(/^"|"$/g, '')));
  return new Map(rows.map(([account, amount]) => [account!, amount === '0' ? 0n : numericToMinorUnits(amount!)]));
}

describe('cross-check with hledger', () => {
  test('"export the ledger as an hledger journal and compare hledger balance with the trial balance"', async () => {
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    const sub = await api(stack)
      .post(`/api/v1/accounting-settings/${user.me.company.id}/accounts/5110/subaccounts`)
      .set(...bearer(user.accessToken))
      .send({ code: 'KAPITALBANK', name: 'Kapitalbank', enabled: true })
      .expect(201);
    const accounts = ['5110', '4010', '2980', '6010', '8330', '9010', '9410', '0130'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const posted: string[] = [];
    for (let i = 0; i < 120; i++) {
      const date = new Date(Date.UTC(2025, 0, 1 + (i % 150))).toISOString().slice(0, 10);
      const a = accounts[next() % accounts.length]!;
      const b = accounts[next() % accounts.length]!;
      const cents = BigInt(1 + (next() % 5_000_000));
      const lines = [
        { accountCode: a, debit: formatMinorUnits(cents), ...(a === '5110' && i % 2 === 0 ? { subaccountId: sub.body.id } : {}) },
        { accountCode: b, credit: formatMinorUnits(cents - 1n) },
        { accountCode: '9010', credit: '0.01' },
      ];
      const res = await ledger.post(entryBody(date, lines, { description: `Invoice ${i}; paid | "quoted"` })).expect(201);
      posted.push(res.body.id);
      if (i % 17 === 5) await ledger.reverse(posted[i - 3]!, { requestId: randomUUID(), entryDate: date, reason: 'correction' }).expect(201);
    }
    const close = await ledger.close('2025-03-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');

    const entries: ExportedEntry[] = [];
    for (let page = 0; ; page++) {
      const res = await ledger.list({ page, size: 100 }).expect(200);
      entries.push(...res.body.items);
      if (page + 1 >= res.body.totalPages) break;
    }
    const journal = toHledgerJournal(entries);
    for (const asOf of ['2025-02-14', '2025-03-31', '2025-05-30']) {
      const theirs = hledgerBalances(journal, asOf);
      const tb = (await ledger.trialBalance(asOf).expect(200)).body;
      const ours = new Map<string, bigint>(
        tb.lines.map((l: { code: string; debit: string; credit: string }) => [l.code, numericToMinorUnits(l.debit) - numericToMinorUnits(l.credit)]),
      );
      expect(Object.fromEntries([...ours].map(([k, v]) => [k, formatMinorUnits(v)]))).toEqual(
        Object.fromEntries([...theirs].map(([k, v]) => [k, formatMinorUnits(v)])),
      );
      expect([...theirs.values()].reduce((s, v) => s + v, 0n)).toBe(0n);
    }
  }, 120_000);
});
