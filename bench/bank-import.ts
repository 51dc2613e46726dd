// Bank statement import against a running service (`npm start`: the API and its worker) and its database:
//   npm run bench:bank-import   (BENCH_URL, BENCH_BANK_LINES=10000, BENCH_BANK_INVOICES=5000, BENCH_API_PID,
//                                BENCH_WORKER_PID)
// A company with BENCH_BANK_INVOICES open sales invoices of a tenth as many customers (loaded straight into the
// database as bench/documents.ts loads the aging's, partial payments included) imports a 1C statement (UTF-8)
// whose lines are half payments of those invoices (the customer's TIN and exactly an invoice's outstanding: each
// one the default proposal matches) and half other money (fees, payments out, unknown payers). Measured: the
// time from the POST to COMPLETED, the lines proposed, and the API's and the worker's resident memory, peak
// sampled every 50 ms, above what each held before. The same for a statement of half as many lines into a
// company of its own: memory flat in the file's size is the peak not growing with it. The floor is reading the
// same file in this process with the parser the worker uses.
import { readdirSync, readFileSync } from 'node:fs';
import { loadConfig } from '../runtime/config';
import { createSequelize } from '../db/connection';
import { parseBankStatement } from '../adapters/bank-statements';
import { BASE, post } from './harness';
import { apiPid } from './exports';
import { loadAging } from './documents';
import { signedInAgain, workspace, type Workspace } from './ledger';

const LINES = Number(process.env.BENCH_BANK_LINES ?? 10_000);
const INVOICES = Number(process.env.BENCH_BANK_INVOICES ?? 5_000);
const config = loadConfig({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
const ACCOUNT = '20208000900555000001';

const auth = (ws: Workspace) => ({ authorization: `Bearer ${ws.accessToken}` });

/** Resident memory of a process in MiB. */
function rssMiB(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kib) / 1024);
}

/** The worker process: BENCH_WORKER_PID, or the one process of this machine running worker/main. */
function workerPid(): number {
  if (process.env.BENCH_WORKER_PID) return Number(process.env.BENCH_WORKER_PID);
  const found = readdirSync('/proc').flatMap((pid) => {
    if (!/^\d+$/.test(pid)) return [];
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      return /worker\/main\.(js|ts)\b/.test(cmdline) ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
  if (found.length !== 1) throw new Error(`${found.length} processes run worker/main: set BENCH_WORKER_PID`);
  return found[0]!;
}

/** The company's open sales invoices: each one's customer TIN and outstanding amount. */
async function openInvoices(ws: Workspace): Promise<Array<{ tin: string; outstanding: string }>> {
  const owner = createSequelize(config.database.ownerUrl, { poolMax: 1 });
  try {
    return await owner.transaction(async (tx) => {
      await owner.query(`SELECT set_config('app.tenant_id', :t, true)`, { replacements: { t: ws.tenantId }, transaction: tx });
      const [rows] = await owner.query(
        `SELECT c.tin, (i.total_gross - i.allocated)::numeric(20, 2)::text AS outstanding FROM invoices i JOIN counterparties c ON c.tenant_id = i.tenant_id AND c.id = i.counterparty_id
          WHERE i.tenant_id = :t AND i.legal_entity_id = :le AND i.status = 'POSTED' AND i.allocated < i.total_gross ORDER BY i.id`,
        { replacements: { t: ws.tenantId, le: ws.legalEntityId }, transaction: tx },
      );
      return rows as Array<{ tin: string; outstanding: string }>;
    });
  } finally {
    await owner.close();
  }
}

const dmy = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;

/** A 1C client-bank exchange statement of January 2025: `lines` lines, half of them paying `invoices` one each. */
function statementFile(lines: number, invoices: Array<{ tin: string; outstanding: string }>): Buffer {
  const out = [
    '1CClientBankExchange',
    'ВерсияФормата=1.03',
    'Кодировка=UTF-8',
    'Отправитель=Клиент-Банк',
    'Получатель=Бухгалтерия',
    `ДатаНачала=${dmy('2025-01-01')}`,
    `ДатаКонца=${dmy('2025-01-31')}`,
    `РасчСчет=${ACCOUNT}`,
  ];
  const documents: string[] = [];
  let balance = 0n;
  for (let i = 0; i < lines; i++) {
    const date = `2025-01-${String(1 + (i % 28)).padStart(2, '0')}`;
    const paying = i % 2 === 0 ? invoices[(i / 2) % invoices.length] : undefined;
    const incoming = paying !== undefined || i % 4 === 1;
    const amount = paying ? paying.outstanding : `${1000 + (i % 997) * 13}.${String(i % 100).padStart(2, '0')}`;
    const cents = BigInt(amount.replace('.', ''));
    balance += incoming ? cents : -cents;
    const theirs = { account: `2020800010${String(i).padStart(10, '0')}`, name: paying ? `Customer ${paying.tin}` : `Party ${i}`, tin: paying?.tin };
    const ours = { account: ACCOUNT, name: 'ООО «Бенчмарк»', tin: '309999999' };
    const [payer, payee] = incoming ? [theirs, ours] : [ours, theirs];
    documents.push(
      'СекцияДокумент=Платежное поручение',
      `Номер=${i + 1}`,
      `Дата=${dmy(date)}`,
      `Сумма=${amount}`,
      `ПлательщикСчет=${payer.account}`,
      `Плательщик=${payer.name}`,
      ...(payer.tin ? [`ПлательщикИНН=${payer.tin}`] : []),
      `ПолучательСчет=${payee.account}`,
      `Получатель=${payee.name}`,
      ...(payee.tin ? [`ПолучательИНН=${payee.tin}`] : []),
      `${incoming ? 'ДатаПоступило' : 'ДатаСписано'}=${dmy(date)}`,
      `НазначениеПлатежа=${paying ? `Оплата по счёту-фактуре, строка ${i}` : `Прочий платёж ${i}`}`,
      'КонецДокумента',
    );
  }
  const opening = 1_000_000_000n;
  const money = (c: bigint) => `${c < 0n ? '-' : ''}${(c < 0n ? -c : c) / 100n}.${String((c < 0n ? -c : c) % 100n).padStart(2, '0')}`;
  out.push(
    'СекцияРасчСчет',
    `ДатаНачала=${dmy('2025-01-01')}`,
    `ДатаКонца=${dmy('2025-01-31')}`,
    `РасчСчет=${ACCOUNT}`,
    `НачальныйОстаток=${money(opening)}`,
    `КонечныйОстаток=${money(opening + balance)}`,
    'КонецРасчСчет',
  );
  // Not pushed as arguments: a long statement's documents are more than a call's arguments may be.
  return Buffer.from(out.concat(documents, ['КонецФайла', '']).join('\r\n'), 'utf8');
}

export interface BankImportRun {
  lines: number;
  bytes: number;
  invoices: number;
  seconds: number;
  parseSeconds: number;
  proposed: number;
  apiPeakMiB: number;
  workerPeakMiB: number;
}

/** One import of `lines` lines into a fresh company with INVOICES open invoices, timed and its memory sampled. */
async function importRun(lines: number): Promise<BankImportRun> {
  const loaded = await workspace();
  await loadAging(loaded, INVOICES, Math.max(1, Math.floor(INVOICES / 10)));
  const ws = await signedInAgain(loaded);
  const account = await post(`/api/v1/bank-accounts/${ws.legalEntityId}`, { bankCode: '00014', accountNumber: ACCOUNT, name: 'Benchmark account' }, auth(ws));
  if (account.status !== 201) throw new Error(`createBankAccount answered ${account.status}: ${await account.text()}`);
  const { id: bankAccountId } = (await account.json()) as { id: string };
  const invoices = await openInvoices(ws);
  const file = statementFile(lines, invoices);

  const parseStarted = performance.now();
  const parsed = await parseBankStatement(file, { contentType: 'text/plain' });
  const parseSeconds = (performance.now() - parseStarted) / 1000;
  if (parsed[0]!.lines.length !== lines) throw new Error(`the statement holds ${parsed[0]!.lines.length} lines, not ${lines}`);

  const [api, worker] = [apiPid(), workerPid()];
  const before = { api: rssMiB(api), worker: rssMiB(worker) };
  const peak = { ...before };
  const sampler = setInterval(() => {
    peak.api = Math.max(peak.api, rssMiB(api));
    peak.worker = Math.max(peak.worker, rssMiB(worker));
  }, 50);
  const started = performance.now();
  let outcome: { status: string; counts: { read: number; proposed: number }; problem: unknown };
  try {
    const sent = await fetch(`${BASE}/api/v1/bank-accounts/${ws.legalEntityId}/${bankAccountId}/statements`, {
      method: 'POST',
      headers: { ...auth(ws), 'content-type': 'text/plain' },
      body: file,
    });
    if (sent.status !== 202) throw new Error(`importBankStatement answered ${sent.status}: ${(await sent.text()).slice(0, 300)}`);
    const { id } = (await sent.json()) as { id: string };
    for (;;) {
      const res = await fetch(`${BASE}/api/v1/bank-accounts/${ws.legalEntityId}/${bankAccountId}/statements/${id}`, { headers: auth(ws) });
      outcome = (await res.json()) as typeof outcome;
      if (outcome.status !== 'RUNNING') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  if (outcome.status !== 'COMPLETED' || outcome.counts.read !== lines) throw new Error(`the import ended ${outcome.status}: ${JSON.stringify(outcome).slice(0, 400)}`);
  return {
    lines,
    bytes: file.length,
    invoices: invoices.length,
    seconds,
    parseSeconds,
    proposed: outcome.counts.proposed,
    apiPeakMiB: peak.api - before.api,
    workerPeakMiB: peak.worker - before.worker,
  };
}

/** Half the lines, then all of them, each into a company of its own. */
export async function measureBankImport(): Promise<BankImportRun[]> {
  return [await importRun(Math.max(2, Math.floor(LINES / 2))), await importRun(LINES)];
}

async function main(): Promise<void> {
  const runs = await measureBankImport();
  console.table(
    runs.map((r) => ({
      lines: r.lines,
      'file MiB': (r.bytes / 1024 / 1024).toFixed(1),
      'open invoices': r.invoices,
      'seconds to COMPLETED': r.seconds.toFixed(1),
      'parse alone (floor) s': r.parseSeconds.toFixed(2),
      proposed: r.proposed,
      'API peak +MiB': r.apiPeakMiB,
      'worker peak +MiB': r.workerPeakMiB,
    })),
  );
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
