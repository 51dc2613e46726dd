import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Decimal from 'decimal.js';
import { QueryTypes, type Transaction } from 'sequelize';
import type { ExportedEntry } from '../../tools/hledger-journal';
import { snapshotLockKey } from '../../db/repositories/ledger/period-closes';
import { api, bearer, type Registered } from './clients';
import type { TestStack } from './stack';

export interface LineSpec {
  accountCode: string;
  debit?: string;
  credit?: string;
  subaccountId?: string;
  counterpartyId?: string;
  memo?: string;
  currency?: string;
  currencyAmount?: string;
  rate?: string;
  rateSource?: 'CBU' | 'BANK' | 'MANUAL';
}

/** A JournalEntryCreate body: lines default the missing side to "0". */
export function entryBody(entryDate: string, lines: LineSpec[], extra: Record<string, unknown> = {}) {
  return {
    requestId: randomUUID(),
    entryDate,
    description: `Entry of ${entryDate}`,
    lines: lines.map((l) => ({ ...l, debit: l.debit ?? '0', credit: l.credit ?? '0' })),
    ...extra,
  };
}

/** Two lines: debit one account, credit another. */
export function simpleEntry(entryDate: string, amount: string, debit = '5110', credit = '9010') {
  return entryBody(entryDate, [
    { accountCode: debit, debit: amount },
    { accountCode: credit, credit: amount },
  ]);
}

export function ledgerApi(stack: TestStack, user: Registered) {
  const base = `/api/v1/ledger/${user.me.company.id}`;
  const auth = bearer(user.accessToken);
  return {
    base,
    post: (body: unknown) => api(stack).post(`${base}/entries`).set(...auth).send(body as object),
    reverse: (entryId: string, body: unknown) => api(stack).post(`${base}/entries/${entryId}/reversal`).set(...auth).send(body as object),
    get: (entryId: string) => api(stack).get(`${base}/entries/${entryId}`).set(...auth),
    list: (query: Record<string, string | number> = {}) => api(stack).get(`${base}/entries`).query(query).set(...auth),
    trialBalance: (asOf: string) => api(stack).get(`${base}/trial-balance`).query({ asOf }).set(...auth),
    turnoverSheet: (from: string, to: string, query: Record<string, string> = {}) =>
      api(stack).get(`${base}/reports/turnover-sheet`).query({ from, to, ...query }).set(...auth),
    accountStatement: (query: Record<string, string | number>) => api(stack).get(`${base}/reports/account-statement`).query(query).set(...auth),
    report: (name: 'balance-sheet' | 'financial-results', query: Record<string, string>) => api(stack).get(`${base}/reports/${name}`).query(query).set(...auth),
    close: (closeDate: string, requestId: string = randomUUID()) => api(stack).post(`${base}/periods/close`).set(...auth).send({ requestId, closeDate }),
    closes: () => api(stack).get(`${base}/periods`).set(...auth),
    getClose: (closeId: string) => api(stack).get(`${base}/periods/${closeId}`).set(...auth),
  };
}

/** Polls a close until it leaves RUNNING. */
export async function waitForClose(ledger: ReturnType<typeof ledgerApi>, closeId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await ledger.getClose(closeId).expect(200);
    if (res.body.status !== 'RUNNING') return res.body;
    if (Date.now() > deadline) throw new Error(`close ${closeId} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Takes the advisory lock a close's snapshot step takes (snapshotLockKey), in a transaction of the admin
 * connection, so a close of that company and date waits in its snapshot step until `release`.
 */
export async function holdSnapshotStep(stack: TestStack, legalEntityId: string, closeDate: string): Promise<{ release(): Promise<void> }> {
  let free!: () => void;
  const held = new Promise<void>((resolve) => (free = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holder = stack.admin.transaction(async (tx: Transaction) => {
    await stack.admin.query('SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', {
      replacements: { key: snapshotLockKey(legalEntityId, closeDate) },
      transaction: tx,
    });
    locked();
    await held;
  });
  await Promise.race([lockTaken, holder]);
  return {
    async release() {
      free();
      await holder;
    },
  };
}

/** Every entry of the company, all pages, in journal order. */
export async function allEntries(ledger: ReturnType<typeof ledgerApi>): Promise<Array<ExportedEntry & { id: string; kind: string }>> {
  const entries: Array<ExportedEntry & { id: string; kind: string }> = [];
  for (let page = 0; ; page++) {
    const res = await ledger.list({ page, size: 100 }).expect(200);
    entries.push(...res.body.items);
    if (page + 1 >= res.body.totalPages) break;
  }
  return entries;
}

/**
 * A company's balances as of a date, in three views keyed by top-level account (and currency), debit
 * positive, zeros left out: `uzs` the UZS balance, `foreign` the balance in each foreign currency
 * (`"5210 USD"`), `carrying` the UZS carrying amount of each foreign balance. Amounts are canonical decimal
 * strings (UZS with two decimals, foreign amounts without trailing zeros), so two views compare with toEqual.
 */
export interface BalanceViews {
  uzs: Record<string, string>;
  foreign: Record<string, string>;
  carrying: Record<string, string>;
}

const uzsText = (value: Decimal.Value) => new Decimal(value).toFixed(2);
const foreignText = (value: Decimal.Value) => new Decimal(value).toFixed();

/** The trial balance's views: its balances are on each account's normal side, turned debit positive here. */
export function trialBalanceViews(tb: {
  lines: Array<{ code: string; type: string; debit: string; credit: string; currencies: Array<{ currency: string; balance: string; carryingAmount: string }> }>;
}): BalanceViews {
  const views: BalanceViews = { uzs: {}, foreign: {}, carrying: {} };
  for (const line of tb.lines) {
    const uzs = new Decimal(line.debit).minus(line.credit);
    if (!uzs.isZero()) views.uzs[line.code] = uzsText(uzs);
    const sign = line.type === 'ASSET' || line.type === 'EXPENSE' ? 1 : -1;
    for (const c of line.currencies) {
      const balance = new Decimal(c.balance).times(sign);
      const carrying = new Decimal(c.carryingAmount).times(sign);
      if (!balance.isZero()) views.foreign[`${line.code} ${c.currency}`] = foreignText(balance);
      if (!carrying.isZero()) views.carrying[`${line.code} ${c.currency}`] = uzsText(carrying);
    }
  }
  return views;
}

/**
 * The same views from hledger, run on a journal tools/hledger-journal.ts wrote: `balance --cost` (UZS), plain
 * `balance` (each commodity but UZS) and `balance --cost tag:currency=<code>` per currency (the carrying
 * amounts), each summed to the top-level accounts, through `asOf`.
 */
export function hledgerViews(journal: string, asOf: string, currencies: readonly string[]): BalanceViews {
  const dir = mkdtempSync(path.join(tmpdir(), 'hledger-'));
  try {
    const file = path.join(dir, 'ledger.journal');
    writeFileSync(file, journal);
    const end = new Date(Date.parse(`${asOf}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const report = (args: string[]) => {
      const csv = execFileSync('hledger', ['-f', file, 'balance', '--flat', '--depth', '1', '-e', end, '-O', 'csv', '--no-total', '--layout', 'bare', ...args], {
        encoding: 'utf8',
      });
      // "account","commodity","balance"; a zero balance may come without its commodity.
      return csv
        .trim()
        .split('\n')
        .slice(1)
        .map((row) => row.split(',').map((cell) => cell.replace(/^"|"$/g, '')))
        .filter(([, , amount]) => !new Decimal(amount!).isZero())
        .map(([account, commodity, amount]) => ({ account: account!, commodity: commodity!, amount: amount! }));
    };
    const views: BalanceViews = { uzs: {}, foreign: {}, carrying: {} };
    for (const r of report(['--cost'])) {
      if (r.commodity !== 'UZS') throw new Error(`hledger --cost left ${r.amount} ${r.commodity} on ${r.account}`);
      views.uzs[r.account] = uzsText(r.amount);
    }
    for (const r of report([])) if (r.commodity !== 'UZS') views.foreign[`${r.account} ${r.commodity}`] = foreignText(r.amount);
    for (const currency of currencies) {
      for (const r of report(['--cost', `tag:currency=^${currency}$`])) views.carrying[`${r.account} ${currency}`] = uzsText(r.amount);
    }
    return views;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * hledger's UZS balances (`balance --cost`) of the top-level accounts at the end of each of `dates`, debit
 * positive, zeros left out: one run of `balance --daily --historical` over a journal of UZS lines that
 * tools/hledger-journal.ts wrote, where `hledgerViews` would start two processes a date. Each date's map is what
 * `trialBalanceViews(tb).uzs` of that date is compared with.
 */
export function hledgerDailyUzs(journal: string, dates: readonly string[]): Map<string, Record<string, string>> {
  const sorted = [...new Set(dates)].sort();
  const views = new Map(sorted.map((d) => [d, {} as Record<string, string>]));
  if (sorted.length === 0) return views;
  const dir = mkdtempSync(path.join(tmpdir(), 'hledger-'));
  try {
    const file = path.join(dir, 'ledger.journal');
    writeFileSync(file, journal);
    const end = new Date(Date.parse(`${sorted[sorted.length - 1]}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const csv = execFileSync(
      'hledger',
      ['-f', file, 'balance', '--flat', '--depth', '1', '--cost', '--daily', '--historical', '-b', sorted[0]!, '-e', end, '-O', 'csv', '--no-total', '--layout', 'bare'],
      { encoding: 'utf8' },
    );
    // "account","commodity","<date>",…: a row per account and commodity, a column per day.
    const [header, ...rows] = csv
      .trim()
      .split('\n')
      .map((row) => row.split(',').map((cell) => cell.replace(/^"|"$/g, '')));
    for (const [account, commodity, ...amounts] of rows) {
      sorted.forEach((date) => {
        const amount = amounts[header!.indexOf(date) - 2];
        if (amount === undefined) throw new Error(`hledger answered no column for ${date}`);
        if (new Decimal(amount).isZero()) return;
        if (commodity !== 'UZS') throw new Error(`hledger --cost left ${amount} ${commodity} on ${account} at ${date}`);
        views.get(date)![account!] = uzsText(amount);
      });
    }
    return views;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The database's bookkeeping beside the lines, checked against the lines themselves (read around row-level
 * security): journal_day_totals holds each day's, account's, subaccount's and currency's sums of the company's
 * lines, by the kind of document that posted them, the year-end closing entries' apart, and no other row;
 * each line's `source_type` is its entry's. Answers the number of day totals compared.
 */
export async function expectDayTotalsTie(stack: TestStack, legalEntityId: string): Promise<number> {
  const totals = `SELECT entry_date, account_code, subaccount_id, currency, source_type, year_end, debit, credit, currency_debit, currency_credit, line_count
                    FROM journal_day_totals WHERE legal_entity_id = :legalEntityId`;
  const lines = `SELECT l.entry_date, l.account_code, l.subaccount_id, l.currency, e.source_type, e.kind = 'YEAR_END_CLOSING' AS year_end,
                        sum(l.debit) AS debit, sum(l.credit) AS credit,
                        CASE WHEN l.currency IS NULL THEN NULL ELSE sum(CASE WHEN l.debit > 0 THEN l.currency_amount ELSE 0 END) END AS currency_debit,
                        CASE WHEN l.currency IS NULL THEN NULL ELSE sum(CASE WHEN l.credit > 0 THEN l.currency_amount ELSE 0 END) END AS currency_credit,
                        count(*) AS line_count
                   FROM journal_lines l JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id
                  WHERE l.legal_entity_id = :legalEntityId
                  GROUP BY 1, 2, 3, 4, 5, 6`;
  const [differences] = (await stack.admin.query(
    `SELECT (SELECT count(*) FROM ((${totals} EXCEPT ${lines}) UNION ALL (${lines} EXCEPT ${totals})) d) AS days,
            (SELECT count(*) FROM journal_lines l JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id
              WHERE l.legal_entity_id = :legalEntityId AND l.source_type IS DISTINCT FROM e.source_type) AS lines,
            (SELECT count(*) FROM journal_day_totals WHERE legal_entity_id = :legalEntityId) AS compared`,
    { replacements: { legalEntityId }, type: QueryTypes.SELECT },
  )) as Array<{ days: string; lines: string; compared: string }>;
  expect({ dayTotalsDiffering: Number(differences!.days), linesMislabelled: Number(differences!.lines) }).toEqual({ dayTotalsDiffering: 0, linesMislabelled: 0 });
  return Number(differences!.compared);
}
