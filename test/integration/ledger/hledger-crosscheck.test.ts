import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { allEntries, entryBody, hledgerViews, ledgerApi, trialBalanceViews, waitForClose } from '../../helpers/ledger';
import { revaluationApi, storeCbuRate, waitForRevaluation } from '../../helpers/currency';
import { toHledgerJournal } from '../../../tools/hledger-journal';
import { formatMinorUnits } from '../../../core/ledger/money';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

/** currencyAmount × rate, half-up to two decimals: what a foreign line's UZS amount must be. */
const toUzs = (amount: string, rate: string) => new Decimal(amount).times(rate).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);

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

    const journal = toHledgerJournal(await allEntries(ledger));
    for (const asOf of ['2025-02-14', '2025-03-31', '2025-05-30']) {
      const theirs = hledgerViews(journal, asOf, []);
      const tb = (await ledger.trialBalance(asOf).expect(200)).body;
      expect(trialBalanceViews(tb)).toEqual(theirs);
      expect(Object.values(theirs.uzs).reduce((s, v) => s.plus(v), new Decimal(0)).isZero()).toBe(true);
    }
  }, 120_000);

  // CBU rates of 2012: no other file stores rates of that year.
  test('"foreign lines at CBU and MANUAL rates, a reversal and a revaluation: hledger at cost gives the UZS balances, per commodity the foreign ones, per currency tag the carrying amounts"', async () => {
    const rates = {
      USD: { '2012-01-02': '1795.53', '2012-02-01': '1805.1', '2012-02-28': '1818.4471', '2012-03-15': '1830' },
      EUR: { '2012-01-02': '2321.0412', '2012-02-01': '2370.55', '2012-02-28': '2432.1', '2012-03-15': '2400.7' },
    };
    for (const [currency, byDate] of Object.entries(rates)) {
      for (const [date, rate] of Object.entries(byDate)) await storeCbuRate(stack, currency, date, rate);
    }
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    const revaluations = revaluationApi(stack, user);
    const sub = await api(stack)
      .post(`/api/v1/accounting-settings/${user.me.company.id}/accounts/5210/subaccounts`)
      .set(...bearer(user.accessToken))
      .send({ code: 'EUR-ACCOUNT', name: 'EUR account', enabled: true })
      .expect(201);
    const cbu = (currency: string, amount: string, rate: string) => ({ currency, currencyAmount: amount, uzs: toUzs(amount, rate) });
    const manual = (currency: string, amount: string, rate: string) => ({ currency, currencyAmount: amount, rate, rateSource: 'MANUAL' as const, uzs: toUzs(amount, rate) });
    const post = async (date: string, lines: Array<{ accountCode: string; subaccountId?: string; side: 'debit' | 'credit'; uzs: string; currency?: string; currencyAmount?: string; rate?: string; rateSource?: 'MANUAL' }>) => {
      const res = await ledger.post(entryBody(date, lines.map(({ side, uzs, ...l }) => ({ ...l, [side]: uzs }))));
      // The body says why, when it is not 201.
      expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
      return res.body.id as string;
    };

    const usd = cbu('USD', '1000.00', '1795.53');
    await post('2012-01-10', [{ accountCode: '5210', side: 'debit', ...usd }, { accountCode: '8330', side: 'credit', uzs: usd.uzs }]);
    const eur = cbu('EUR', '400.00', '2321.0412');
    await post('2012-01-12', [{ accountCode: '5210', subaccountId: sub.body.id, side: 'debit', ...eur }, { accountCode: '8330', side: 'credit', uzs: eur.uzs }]);
    const invoice = manual('EUR', '500.00', '2330.125');
    const invoiceId = await post('2012-01-15', [{ accountCode: '4010', side: 'debit', ...invoice }, { accountCode: '9010', side: 'credit', uzs: invoice.uzs }]);
    const bill = cbu('USD', '300.00', '1805.1');
    await post('2012-02-05', [{ accountCode: '9410', side: 'debit', uzs: bill.uzs }, { accountCode: '6010', side: 'credit', ...bill }]);
    await ledger.reverse(invoiceId, { requestId: randomUUID(), entryDate: '2012-02-10', reason: 'wrong customer' }).expect(201);
    // The supplier paid at the bank's rate: the difference is a loss.
    const settled = cbu('USD', '200.00', '1805.1');
    const paid = manual('USD', '200.00', '1810.3333');
    await post('2012-02-20', [
      { accountCode: '6010', side: 'debit', ...settled },
      { accountCode: '9620', side: 'debit', uzs: new Decimal(paid.uzs).minus(settled.uzs).toFixed(2) },
      { accountCode: '5210', side: 'credit', ...paid },
    ]);
    const sale = cbu('EUR', '250.00', '2370.55');
    const saleId = await post('2012-02-25', [{ accountCode: '4010', side: 'debit', ...sale }, { accountCode: '9010', side: 'credit', uzs: sale.uzs }]);

    const requested = await revaluations.post('2012-02-29').expect(202);
    const revaluation = await waitForRevaluation(revaluations, requested.body.id);
    expect(revaluation.status).toBe('COMPLETED');
    expect(revaluation.adjustments.map((a: { accountCode: string; currency: string }) => `${a.accountCode} ${a.currency}`).sort()).toEqual([
      '4010 EUR',
      '5210 EUR',
      '5210 USD',
      '6010 USD',
    ]);

    // After the revaluation: more foreign lines, and the reversal of a revalued sale (its EUR balance goes to
    // zero, the carrying amount keeps the revaluation's difference).
    const receipt = manual('USD', '50.55', '1829.99');
    await post('2012-03-20', [{ accountCode: '5210', side: 'debit', ...receipt }, { accountCode: '9010', side: 'credit', uzs: receipt.uzs }]);
    await ledger.reverse(saleId, { requestId: randomUUID(), entryDate: '2012-03-21', reason: 'returned' }).expect(201);

    const journal = toHledgerJournal(await allEntries(ledger));
    expect(journal).toContain(`5210  USD -200.00 @@ UZS ${paid.uzs}  ; currency:USD`);
    for (const asOf of ['2012-01-31', '2012-02-29', '2012-03-31']) {
      const tb = (await ledger.trialBalance(asOf).expect(200)).body;
      expect(tb.totalDebit).toBe(tb.totalCredit);
      const ours = trialBalanceViews(tb);
      expect(ours).toEqual(hledgerViews(journal, asOf, ['USD', 'EUR']));
    }
    // The numbers themselves, as of the revaluation: 800 USD and 400 EUR on 5210, 100 USD owed, at the rates of 2012-02-28.
    const atRevaluation = trialBalanceViews((await ledger.trialBalance('2012-02-29').expect(200)).body);
    expect(atRevaluation.foreign).toEqual({ '5210 USD': '800', '5210 EUR': '400', '4010 EUR': '250', '6010 USD': '-100' });
    expect(atRevaluation.carrying).toEqual({
      '5210 USD': toUzs('800', '1818.4471'),
      '5210 EUR': toUzs('400', '2432.1'),
      '4010 EUR': toUzs('250', '2432.1'),
      '6010 USD': `-${toUzs('100', '1818.4471')}`,
    });
    const atEnd = trialBalanceViews((await ledger.trialBalance('2012-03-31').expect(200)).body);
    expect(atEnd.foreign['4010 EUR']).toBeUndefined();
    expect(atEnd.carrying['4010 EUR']).toBe(new Decimal(toUzs('250', '2432.1')).minus(sale.uzs).toFixed(2));
  }, 120_000);
});
