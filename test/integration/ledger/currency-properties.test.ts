import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { allEntries, entryBody, expectDayTotalsTie, hledgerViews, ledgerApi, trialBalanceViews, waitForClose, type BalanceViews, type LineSpec } from '../../helpers/ledger';
import { revaluationApi, storeCbuRate, waitForRevaluation } from '../../helpers/currency';
import { toHledgerJournal } from '../../../tools/hledger-journal';

// Random sequences of foreign and UZS postings, CBU rate changes, revaluations, reversals and closes, checked
// against a recomputation from the journal's lines, against the revaluation rule (NAS 22) right after each
// revaluation, and against hledger at the end. The CBU rates are of 2013 and 2014: no other file stores rates
// of those years. Rates stay in the table from one run to the next (every run is a new company), so the
// test keeps a copy of every rate it stored and reads the rate of a day from that copy.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
  // From the first day on every currency has a rate: a close revalues at its date and needs them.
  for (const [currency, rate] of Object.entries(BASE_RATES)) await storeRate(currency, day(0), rate);
  // A rate after every day the runs use (a rate of 1 UZS): the rate of a day is never a later publication.
  for (const currency of CURRENCIES) await storeRate(currency, '2014-06-30', '1');
});
afterAll(async () => {
  await stack.stop();
});

const CURRENCIES = ['USD', 'EUR', 'JPY'] as const;
type Currency = (typeof CURRENCIES)[number];
const DECIMALS: Record<Currency, number> = { USD: 2, EUR: 2, JPY: 0 };
/** Rates are generated as integers over this scale: four decimals for USD and EUR, six for JPY. */
const RATE_SCALE: Record<Currency, number> = { USD: 4, EUR: 4, JPY: 6 };
const BASE_RATES: Record<Currency, string> = { USD: '1984.3712', EUR: '2613.2095', JPY: '21.104357' };

// Monetary accounts (revalued) and the rest; the gain and loss accounts come from the revaluations.
const MONETARY = new Set(['5210', '4010', '6010']);
const ACCOUNTS = ['5210', '4010', '6010', '9010', '9410'];
const LAST_DAY = 90;
const day = (n: number) => new Date(Date.UTC(2013, 0, 1 + n)).toISOString().slice(0, 10);

/** Every CBU rate this file stored: currency → date → rate. */
const storedRates = new Map<string, Map<string, string>>();
async function storeRate(currency: string, date: string, rate: string): Promise<void> {
  await storeCbuRate(stack, currency, date, rate);
  const byDate = storedRates.get(currency) ?? new Map<string, string>();
  byDate.set(date, rate);
  storedRates.set(currency, byDate);
}
/** The CBU rate of a day: the latest stored on or before it. */
function cbuRate(currency: string, date: string): string {
  const dates = [...(storedRates.get(currency)?.keys() ?? [])].filter((d) => d <= date).sort();
  const latest = dates[dates.length - 1];
  if (!latest) throw new Error(`no ${currency} rate on or before ${date}`);
  return storedRates.get(currency)!.get(latest)!;
}

const halfUp = (value: Decimal) => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
/** A two-decimal amount, with no sign on zero. */
const money = (value: Decimal) => (value.isZero() ? '0.00' : value.toFixed(2));
const rateText = (currency: Currency, scaled: number) => new Decimal(scaled).div(10 ** RATE_SCALE[currency]).toFixed();

type GenLine = { account: string; currency: Currency | 'UZS'; units: number; debit: boolean; manualRate: number | undefined };
type Op =
  | { kind: 'post'; day: number; lines: GenLine[] }
  | { kind: 'reverse'; pick: number; day: number }
  | { kind: 'rate'; currency: Currency; day: number; rate: number }
  | { kind: 'revalue'; day: number }
  | { kind: 'close'; day: number };

const dayArb = fc.integer({ min: 0, max: LAST_DAY });
const lineArb: fc.Arbitrary<GenLine> = fc.record({
  account: fc.constantFrom(...ACCOUNTS),
  currency: fc.constantFrom<Currency | 'UZS'>('UZS', ...CURRENCIES),
  // Minor units of the currency: up to 50 000.00 USD, EUR or UZS, or 5 000 000 JPY.
  units: fc.integer({ min: 1, max: 5_000_000 }),
  debit: fc.boolean(),
  // A MANUAL rate over RATE_SCALE (between 1 and 5000 UZS per USD or EUR, 1 and 50 per JPY), or the CBU rate.
  manualRate: fc.option(fc.integer({ min: 10_000, max: 50_000_000 }), { nil: undefined }),
});
// A new CBU rate: over RATE_SCALE, within half and twice the base rate.
const rateOp = fc
  .record({ currency: fc.constantFrom(...CURRENCIES), day: fc.integer({ min: 1, max: LAST_DAY }), factor: fc.integer({ min: 500, max: 2000 }) })
  .map(({ currency, day: d, factor }): Op => ({
    kind: 'rate',
    currency,
    day: d,
    rate: new Decimal(BASE_RATES[currency]).times(factor).div(1000).times(10 ** RATE_SCALE[currency]).round().toNumber(),
  }));
const ops = fc.array(
  fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('post' as const), day: dayArb, lines: fc.array(lineArb, { minLength: 1, maxLength: 4 }) }), weight: 6 },
    { arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat(), day: dayArb }), weight: 2 },
    { arbitrary: rateOp, weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('revalue' as const), day: dayArb }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant('close' as const), day: dayArb }), weight: 1 },
  ),
  { minLength: 1, maxLength: 12 },
);

/** The entry's lines with their UZS amounts at the rate of the day, balanced in UZS by a line on 9010 or 9410. */
function linesOf(op: Extract<Op, { kind: 'post' }>): LineSpec[] {
  let balance = new Decimal(0);
  const lines = op.lines.map((l): LineSpec => {
    const side = l.debit ? 'debit' : 'credit';
    if (l.currency === 'UZS') {
      const uzs = new Decimal(l.units).div(100);
      balance = l.debit ? balance.plus(uzs) : balance.minus(uzs);
      return { accountCode: l.account, [side]: uzs.toFixed(2) };
    }
    const amount = new Decimal(l.units).div(10 ** DECIMALS[l.currency]).toFixed(DECIMALS[l.currency]);
    const rate = l.manualRate === undefined ? cbuRate(l.currency, day(op.day)) : rateText(l.currency, l.manualRate);
    const uzs = halfUp(new Decimal(amount).times(rate));
    balance = l.debit ? balance.plus(uzs) : balance.minus(uzs);
    return {
      accountCode: l.account,
      [side]: uzs.toFixed(2),
      currency: l.currency,
      currencyAmount: amount,
      ...(l.manualRate === undefined ? {} : { rate, rateSource: 'MANUAL' as const }),
    };
  });
  if (balance.isPositive() && !balance.isZero()) lines.push({ accountCode: '9010', credit: balance.toFixed(2) });
  if (balance.isNegative() && !balance.isZero()) lines.push({ accountCode: '9410', debit: balance.negated().toFixed(2) });
  return lines;
}

/** The views and per-account totals recomputed from the journal's lines dated on or before asOf. */
function recompute(entries: Awaited<ReturnType<typeof allEntries>>, asOf: string) {
  const totals: Record<string, [Decimal, Decimal]> = {};
  const foreign: Record<string, Decimal> = {};
  const carrying: Record<string, Decimal> = {};
  for (const e of entries.filter((x) => x.entryDate <= asOf)) {
    for (const l of e.lines) {
      const [debit, credit] = totals[l.accountCode] ?? [new Decimal(0), new Decimal(0)];
      totals[l.accountCode] = [debit.plus(l.debit), credit.plus(l.credit)];
      if (!l.currency) continue;
      const key = `${l.accountCode} ${l.currency}`;
      const debitSide = l.debit !== '0.00';
      foreign[key] = (foreign[key] ?? new Decimal(0)).plus(debitSide ? l.currencyAmount! : new Decimal(l.currencyAmount!).negated());
      carrying[key] = (carrying[key] ?? new Decimal(0)).plus(l.debit).minus(l.credit);
    }
  }
  const nonZero = (values: Record<string, Decimal>, text: (d: Decimal) => string) =>
    Object.fromEntries(Object.entries(values).flatMap(([k, v]) => (v.isZero() ? [] : [[k, text(v)]])));
  const views: BalanceViews = {
    uzs: nonZero(Object.fromEntries(Object.entries(totals).map(([k, [d, c]]) => [k, d.minus(c)])), (d) => d.toFixed(2)),
    foreign: nonZero(foreign, (d) => d.toFixed()),
    carrying: nonZero(carrying, (d) => d.toFixed(2)),
  };
  return { views, totals: Object.fromEntries(Object.entries(totals).map(([k, [d, c]]) => [k, [d.toFixed(2), c.toFixed(2)]])) };
}

describe('currency properties', () => {
  test('"random foreign and UZS postings, rate changes, revaluations, reversals and closes: balanced trial balances, foreign balances equal to their lines, revalued balances at the rate of the date, idempotent revaluations, and hledger agrees"', async () => {
    const property = fc.asyncProperty(ops, async (sequence) => {
      const user = await registerWorkspace(stack);
      const ledger = ledgerApi(stack, user);
      const revaluations = revaluationApi(stack, user);
      const posted: Array<{ id: string; day: number; reversed: boolean }> = [];
      const revalued = new Map<string, string | null>();
      let lastRevaluation = '';
      let closedThrough = -1;
      const entryCount = async () => (await ledger.list({ size: 1 }).expect(200)).body.totalElements as number;

      /** Right after a revaluation at `date`: each monetary balance's carrying amount is its foreign balance at the rate of the date. */
      const expectRevaluedAt = async (date: string) => {
        const tb = (await ledger.trialBalance(date).expect(200)).body;
        const actual: Record<string, string> = {};
        const wanted: Record<string, string> = {};
        for (const line of tb.lines as Array<{ code: string; currencies: Array<{ currency: string; balance: string; carryingAmount: string }> }>) {
          if (!MONETARY.has(line.code)) continue;
          for (const c of line.currencies) {
            const balance = new Decimal(c.balance);
            const atRate = halfUp(balance.abs().times(cbuRate(c.currency, date)));
            actual[`${line.code} ${c.currency}`] = c.carryingAmount;
            wanted[`${line.code} ${c.currency}`] = money(balance.isNegative() ? atRate.negated() : atRate);
          }
        }
        expect({ date, carrying: actual }).toEqual({ date, carrying: wanted });
      };

      /** The same date again: 200, the same revaluation, nothing posted. */
      const expectRepeatChangesNothing = async (date: string) => {
        const before = await entryCount();
        const again = await revaluations.post(date);
        expect(again.status).toBe(200);
        const known = revalued.get(date);
        if (known) expect(again.body.id).toBe(known);
        else revalued.set(date, again.body.id);
        expect((await waitForRevaluation(revaluations, again.body.id)).status).toBe('COMPLETED');
        expect(await entryCount()).toBe(before);
      };

      for (const op of sequence) {
        if (op.kind === 'post') {
          const res = await ledger.post(entryBody(day(op.day), linesOf(op)));
          expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual(
            op.day <= closedThrough ? { status: 409, body: expect.objectContaining({ type: '/problems/period-closed' }) } : { status: 201, body: null },
          );
          if (res.status === 201) posted.push({ id: res.body.id, day: op.day, reversed: false });
        } else if (op.kind === 'reverse' && posted.length > 0) {
          const target = posted[op.pick % posted.length]!;
          const res = await ledger.reverse(target.id, { requestId: randomUUID(), entryDate: day(op.day), reason: 'property' });
          const allowed = !target.reversed && op.day >= target.day && op.day > closedThrough;
          if (allowed) expect(res.status).toBe(201);
          else expect([400, 409]).toContain(res.status);
          if (res.status === 201) target.reversed = true;
        } else if (op.kind === 'rate') {
          await storeRate(op.currency, day(op.day), rateText(op.currency, op.rate));
        } else if (op.kind === 'revalue') {
          const date = day(op.day);
          const res = await revaluations.post(date);
          if (revalued.has(date)) {
            expect(res.status).toBe(200);
            await expectRepeatChangesNothing(date);
          } else if (op.day <= closedThrough || date < lastRevaluation) {
            expect({ status: res.status, type: res.body.type }).toEqual({ status: 409, type: op.day <= closedThrough ? '/problems/period-closed' : '/problems/revaluation-out-of-order' });
          } else {
            expect(res.status).toBe(202);
            expect((await waitForRevaluation(revaluations, res.body.id)).status).toBe('COMPLETED');
            revalued.set(date, res.body.id);
            lastRevaluation = date;
            await expectRevaluedAt(date);
            await expectRepeatChangesNothing(date);
          }
        } else if (op.kind === 'close') {
          const date = day(op.day);
          const res = await ledger.close(date);
          if (op.day <= closedThrough) {
            expect(res.status).toBe(409);
            continue;
          }
          expect(res.status).toBe(202);
          expect((await waitForClose(ledger, res.body.id)).status).toBe('COMPLETED');
          closedThrough = op.day;
          // A close revalues at its date, unless that date was revalued already.
          if (!revalued.has(date)) {
            await expectRevaluedAt(date);
            revalued.set(date, null);
            if (date > lastRevaluation) lastRevaluation = date;
          }
          await expectRepeatChangesNothing(date);
        }
      }

      const entries = await allEntries(ledger);
      const asOfs = new Set([day(0), day(30), day(60), day(closedThrough < 0 ? 45 : closedThrough), ...revalued.keys(), day(LAST_DAY)]);
      for (const asOf of asOfs) {
        const tb = (await ledger.trialBalance(asOf).expect(200)).body;
        expect(tb.totalDebit).toBe(tb.totalCredit);
        const { views, totals } = recompute(entries, asOf);
        expect({ asOf, views: trialBalanceViews(tb) }).toEqual({ asOf, views });
        expect({ asOf, totals: Object.fromEntries(tb.lines.map((l: { code: string; debit: string; credit: string }) => [l.code, [l.debit, l.credit]])) }).toEqual({
          asOf,
          totals,
        });
      }
      const journal = toHledgerJournal(entries);
      for (const asOf of [day(closedThrough < 0 ? 45 : closedThrough), day(LAST_DAY)]) {
        const tb = (await ledger.trialBalance(asOf).expect(200)).body;
        expect({ asOf, views: hledgerViews(journal, asOf, CURRENCIES) }).toEqual({ asOf, views: trialBalanceViews(tb) });
      }
      // The day totals the reports read are the lines' sums, foreign turnovers and revaluations included.
      await expectDayTotalsTie(stack, user.me.company.id);
    });
    // One run that surely does a bit of everything, then random ones.
    const line = (account: string, currency: Currency | 'UZS', units: number, debit: boolean, manualRate?: number): GenLine => ({ account, currency, units, debit, manualRate });
    const everything: Op[] = [
      { kind: 'post', day: 0, lines: [line('5210', 'USD', 123_456, true), line('6010', 'EUR', 98_765, false, 26_001_234)] },
      { kind: 'post', day: 3, lines: [line('4010', 'JPY', 1_234_567, true), line('5210', 'EUR', 55_555, true)] },
      { kind: 'rate', currency: 'USD', day: 20, rate: 20_011_111 },
      { kind: 'rate', currency: 'JPY', day: 20, rate: 21_555_555 },
      { kind: 'post', day: 21, lines: [line('5210', 'USD', 3_333, false), line('6010', 'JPY', 77_777, false, 20_000_001), line('9410', 'UZS', 500_000, true)] },
      { kind: 'revalue', day: 25 },
      { kind: 'reverse', pick: 2, day: 26 },
      { kind: 'rate', currency: 'EUR', day: 30, rate: 27_000_000 },
      { kind: 'close', day: 31 },
      { kind: 'revalue', day: 25 },
      { kind: 'post', day: 40, lines: [line('4010', 'USD', 1, true), line('5210', 'JPY', 1, false)] },
      { kind: 'revalue', day: 45 },
    ];
    await fc.assert(property, { numRuns: 10, examples: [[everything]] });
  }, 240_000);
});
