import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { entryBody, holdSnapshotStep, ledgerApi, waitForClose } from '../../helpers/ledger';
import { revaluationApi, storeCbuRate, waitForRevaluation } from '../../helpers/currency';
import { storedWebhooks, webhooksApi } from '../../helpers/webhook-endpoints';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';

// Revaluation of foreign-currency balances (NAS 22) through the API and its workflow, including the two
// exchange-difference bugs ERPNext users report. This file's CBU rates are dated in 2017 and 2018.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
  const rates: Array<[string, string, string]> = [
    ['USD', '2017-01-02', '8000'],
    ['USD', '2017-01-31', '8100'],
    ['USD', '2017-02-10', '8200'],
    ['USD', '2017-02-28', '8250'],
    ['USD', '2017-03-31', '8300'],
    ['EUR', '2017-01-02', '9000'],
    ['EUR', '2017-01-31', '8800'],
    ['EUR', '2017-02-15', '8900'],
    ['EUR', '2017-02-28', '8700'],
  ];
  for (const [currency, date, rate] of rates) await storeCbuRate(stack, currency, date, rate);
});
afterAll(async () => {
  await stack.stop();
});

/** A fresh company with its ledger and revaluation calls. */
async function company() {
  const owner = await registerWorkspace(stack);
  return { owner, ledger: ledgerApi(stack, owner), revaluations: revaluationApi(stack, owner) };
}

type Books = Awaited<ReturnType<typeof company>>;

/** Revalues at the date and waits for the outcome. */
async function revalue(books: Books, date: string) {
  const res = await books.revaluations.post(date).expect(202);
  expect(res.body).toMatchObject({ revaluationDate: date, status: 'RUNNING', requestedBy: 'REQUEST', closeId: null, entryId: null });
  return waitForRevaluation(books.revaluations, res.body.id);
}

const foreign = (accountCode: string, side: 'debit' | 'credit', uzs: string, currency: string, currencyAmount: string) => ({
  accountCode,
  [side]: uzs,
  currency,
  currencyAmount,
});

/** Sum of a revaluation's adjustments on one account, in minor units. */
const adjusted = (revaluation: { adjustments: Array<{ accountCode: string; difference: string }> }, code: string) =>
  revaluation.adjustments.filter((a) => a.accountCode === code).reduce((sum, a) => sum + numericToMinorUnits(a.difference), 0n);

const carrying = async (books: Books, asOf: string, code: string, currency: string) => {
  const tb = (await books.ledger.trialBalance(asOf).expect(200)).body;
  return tb.lines.find((l: { code: string }) => l.code === code)?.currencies.find((c: { currency: string }) => c.currency === currency);
};

describe('postRevaluation: POST /api/v1/ledger/{legalEntityId}/revaluations (postRevaluationWorkflow)', () => {
  test('a USD receipt revalued at a higher rate: the gain goes to 9540 in one numbered system entry whose lines name the rate, once per date', async () => {
    const books = await company();
    await books.ledger.post(entryBody('2017-01-05', [foreign('5210', 'debit', '800000.00', 'USD', '100'), { accountCode: '9010', credit: '800000.00' }] as never)).expect(201);
    const done = await revalue(books, '2017-01-31');
    expect(done).toMatchObject({
      status: 'COMPLETED',
      gainTotal: '10000.00',
      lossTotal: '0.00',
      failureReason: null,
      adjustments: [{ accountCode: '5210', subaccountId: null, currency: 'USD', rate: '8100', rateDate: '2017-01-31', difference: '10000.00' }],
    });
    const entry = (await books.ledger.get(done.entryId).expect(200)).body;
    expect(entry).toMatchObject({ number: 2, kind: 'REVALUATION', entryDate: '2017-01-31', postedByMembershipId: null, totalDebit: '10000.00' });
    expect(entry.lines).toEqual([
      expect.objectContaining({ accountCode: '5210', debit: '10000.00', credit: '0.00', currency: 'USD', currencyAmount: '0.00', rate: '8100', rateSource: 'CBU', rateDate: '2017-01-31' }),
      expect.objectContaining({ accountCode: '9540', debit: '0.00', credit: '10000.00', currency: null, memo: 'Exchange gain on USD at 8100 (CBU 2017-01-31)' }),
    ]);
    expect(await carrying(books, '2017-01-31', '5210', 'USD')).toEqual({ currency: 'USD', balance: '100.00', carryingAmount: '810000.00' });

    // The same date again: the same revaluation (200), nothing more posted.
    const again = await books.revaluations.post('2017-01-31').expect(200);
    expect(again.body).toMatchObject({ id: done.id, status: 'COMPLETED', entryId: done.entryId });
    expect((await books.ledger.list().expect(200)).body.totalElements).toBe(2);

    // A revaluation entry is not reversed: the next revaluation corrects it.
    const reversal = await books.ledger.reverse(done.entryId, { requestId: randomUUID(), entryDate: '2017-02-01', reason: 'undo' }).expect(409);
    expect(reversal.body.type).toBe('/problems/entry-not-reversible');

    // Audited: requested by the member, posted by the system.
    const audit = await stack.admin.query<{ action: string; system_actor: boolean; subject_id: string; details: string }>(
      "SELECT action, system_actor, subject_id, details FROM audit_events WHERE tenant_id = :t AND action LIKE 'ledger.revaluation.%' ORDER BY occurred_at",
      { replacements: { t: books.owner.me.tenantId }, type: QueryTypes.SELECT },
    );
    expect(audit).toEqual([
      expect.objectContaining({ action: 'ledger.revaluation.requested', system_actor: false, subject_id: done.id }),
      expect.objectContaining({ action: 'ledger.revaluation.posted', system_actor: true, subject_id: done.id, details: expect.stringContaining('entry #2') }),
    ]);
    expect((await books.revaluations.list().expect(200)).body.map((r: { id: string }) => r.id)).toEqual([done.id]);
  });

  test('ERPNext case 1: a EUR receivable revalued at month end, then paid at a third rate: the difference over both months is amount × (payment rate − original rate), counted once', async () => {
    const books = await company();
    // 1000 EUR invoiced at 9000, revalued at 8800 on 31 January, paid at 8900 on 15 February.
    await books.ledger.post(entryBody('2017-01-10', [foreign('4010', 'debit', '9000000.00', 'EUR', '1000'), { accountCode: '9010', credit: '9000000.00' }] as never)).expect(201);
    const january = await revalue(books, '2017-01-31');
    expect(january).toMatchObject({ gainTotal: '0.00', lossTotal: '200000.00' });
    await books.ledger
      .post(entryBody('2017-02-15', [foreign('5210', 'debit', '8900000.00', 'EUR', '1000'), foreign('4010', 'credit', '8900000.00', 'EUR', '1000')] as never))
      .expect(201);
    const february = await revalue(books, '2017-02-28');
    // The receivable: -200 000 in January, +100 000 when cleared in February; the bank account at 8700.
    expect(adjusted(january, '4010') + adjusted(february, '4010')).toBe(1000n * (8900n - 9000n) * 100n);
    expect(adjusted(february, '5210')).toBe(1000n * (8700n - 8900n) * 100n);
    expect(await carrying(books, '2017-02-28', '4010', 'EUR')).toEqual({ currency: 'EUR', balance: '0.00', carryingAmount: '0.00' });
    // Gains and losses over both months: the receivable's and the bank's, nothing twice.
    const tb = (await books.ledger.trialBalance('2017-02-28').expect(200)).body;
    const net = (code: string) => numericToMinorUnits(tb.lines.find((l: { code: string }) => l.code === code)?.balance ?? '0');
    expect(formatMinorUnits(net('9540') - net('9620'))).toBe(formatMinorUnits(1000n * (8900n - 9000n) * 100n + 1000n * (8700n - 8900n) * 100n));
    expect(tb.totalDebit).toBe(tb.totalCredit);
  });

  test('ERPNext case 2: a receivable paid in full between two revaluations is cleared by the next one, and the one after posts nothing for it', async () => {
    const books = await company();
    await books.ledger.post(entryBody('2017-01-05', [foreign('4010', 'debit', '800000.00', 'USD', '100'), { accountCode: '9010', credit: '800000.00' }] as never)).expect(201);
    const january = await revalue(books, '2017-01-31');
    expect(adjusted(january, '4010')).toBe(1000000n);
    // Paid in full at 8200: the receivable's foreign balance is zero, its UZS balance is -10 000.00.
    await books.ledger
      .post(entryBody('2017-02-10', [foreign('5210', 'debit', '820000.00', 'USD', '100'), foreign('4010', 'credit', '820000.00', 'USD', '100')] as never))
      .expect(201);
    expect(await carrying(books, '2017-02-10', '4010', 'USD')).toEqual({ currency: 'USD', balance: '0.00', carryingAmount: '-10000.00' });
    const february = await revalue(books, '2017-02-28');
    expect(adjusted(february, '4010')).toBe(1000000n);
    expect(await carrying(books, '2017-02-28', '4010', 'USD')).toEqual({ currency: 'USD', balance: '0.00', carryingAmount: '0.00' });
    const march = await revalue(books, '2017-03-31');
    expect(march.adjustments.map((a: { accountCode: string }) => a.accountCode)).toEqual(['5210']);
    // Over the receivable's life: 100 × (8200 − 8000), once.
    expect(adjusted(january, '4010') + adjusted(february, '4010') + adjusted(march, '4010')).toBe(100n * (8200n - 8000n) * 100n);
  });

  test('only monetary accounts are revalued: an advance paid in USD (4310) keeps its historical rate', async () => {
    const books = await company();
    await books.ledger
      .post(entryBody('2017-01-05', [foreign('4310', 'debit', '80000.00', 'USD', '10'), foreign('6010', 'credit', '80000.00', 'USD', '10')] as never))
      .expect(201);
    const done = await revalue(books, '2017-01-31');
    // The payable (6010, credit side) grows with the rate: a loss; the advance stays.
    expect(done.adjustments).toEqual([{ accountCode: '6010', subaccountId: null, currency: 'USD', rate: '8100', rateDate: '2017-01-31', difference: '-1000.00' }]);
    expect(done).toMatchObject({ gainTotal: '0.00', lossTotal: '1000.00' });
    expect(await carrying(books, '2017-01-31', '6010', 'USD')).toEqual({ currency: 'USD', balance: '10.00', carryingAmount: '81000.00' });
  });

  test('when nothing differs from the rate of the date, the revaluation completes without an entry', async () => {
    const books = await company();
    await books.ledger.post(entryBody('2017-01-31', [foreign('5210', 'debit', '810000.00', 'USD', '100'), { accountCode: '9010', credit: '810000.00' }] as never)).expect(201);
    const done = await revalue(books, '2017-01-31');
    expect(done).toMatchObject({ status: 'COMPLETED', entryId: null, gainTotal: '0.00', lossTotal: '0.00', adjustments: [] });
  });

  test('when a currency with a balance has no CBU rate on or before the date, the revaluation fails with the reason; it may be asked again once the rate is there', async () => {
    const books = await company();
    await books.ledger
      .post(entryBody('2018-01-10', [{ accountCode: '5210', debit: '100.00', currency: 'CHF', currencyAmount: '1', rate: '100', rateSource: 'MANUAL' }, { accountCode: '9010', credit: '100.00' }] as never))
      .expect(201);
    const failed = await revalue(books, '2018-01-31');
    expect(failed).toMatchObject({ status: 'FAILED', entryId: null, gainTotal: null });
    expect(failed.failureReason).toMatch(/^rate-unavailable: no CBU rate is stored for CHF on or before 2018-01-31/);
    await storeCbuRate(stack, 'CHF', '2018-01-31', '110');
    const retried = await revalue(books, '2018-01-31');
    expect(retried).toMatchObject({ status: 'COMPLETED', gainTotal: '10.00' });
    expect((await books.revaluations.list().expect(200)).body.map((r: { status: string }) => r.status)).toEqual(['COMPLETED', 'FAILED']);
  });

  test('refused: a future date (400), a closed date (409 period-closed), a date before a later revaluation (409), by a VIEWER (403); nothing is written', async () => {
    const books = await company();
    await books.revaluations.post('2999-01-01').expect(400);
    await revalue(books, '2017-02-28');
    expect((await books.revaluations.post('2017-01-31').expect(409)).body).toMatchObject({ type: '/problems/revaluation-out-of-order', revaluationDate: '2017-02-28' });
    const close = await books.ledger.close('2017-03-31').expect(202);
    expect((await waitForClose(books.ledger, close.body.id)).status).toBe('COMPLETED');
    expect((await books.revaluations.post('2017-03-15').expect(409)).body.type).toBe('/problems/period-closed');
    const viewer = await addMember(stack, books.owner.me.tenantId, ['VIEWER']);
    await books.revaluations.post('2017-04-30', viewer.accessToken).expect(403);
    await api(stack).get(`/api/v1/ledger/${books.owner.me.company.id}/revaluations`).set(...bearer(viewer.accessToken)).expect(200);
    await books.revaluations.get(randomUUID()).expect(404);
    // The 2017-02-28 one and the close's own at 2017-03-31.
    expect((await books.revaluations.list().expect(200)).body.map((r: { revaluationDate: string; requestedBy: string }) => [r.revaluationDate, r.requestedBy])).toEqual([
      ['2017-03-31', 'PERIOD_CLOSE'],
      ['2017-02-28', 'REQUEST'],
    ]);
  });

  test("another workspace's company and revaluations are 404, and nothing is written", async () => {
    const books = await company();
    const done = await revalue(books, '2017-01-31');
    const other = await registerWorkspace(stack);
    const base = `/api/v1/ledger/${books.owner.me.company.id}/revaluations`;
    await api(stack).post(base).set(...bearer(other.accessToken)).send({ revaluationDate: '2017-02-28' }).expect(404);
    await api(stack).get(base).set(...bearer(other.accessToken)).expect(404);
    await api(stack).get(`${base}/${done.id}`).set(...bearer(other.accessToken)).expect(404);
    // Its own company does not see the other's revaluation either.
    await api(stack).get(`/api/v1/ledger/${other.me.company.id}/revaluations/${done.id}`).set(...bearer(other.accessToken)).expect(404);
    expect((await books.revaluations.list().expect(200)).body.map((r: { id: string }) => r.id)).toEqual([done.id]);
  });

  test('while a close runs, a revaluation is 409 period-close-running', async () => {
    const books = await company();
    const held = await holdSnapshotStep(stack, books.owner.me.company.id, '2017-01-31');
    try {
      const close = await books.ledger.close('2017-01-31').expect(202);
      expect((await books.revaluations.post('2017-01-15').expect(409)).body).toMatchObject({ type: '/problems/period-close-running', closeId: close.body.id });
    } finally {
      await held.release();
    }
  });

  test('a revaluation that posts sends revaluation.posted to the endpoints subscribed to it, with the entry', async () => {
    const books = await company();
    await webhooksApi(stack, books.owner).create({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['revaluation.posted'] }).expect(201);
    await books.ledger.post(entryBody('2017-01-05', [foreign('5210', 'debit', '800000.00', 'USD', '100'), { accountCode: '9010', credit: '800000.00' }] as never)).expect(201);
    const done = await revalue(books, '2017-01-31');
    const { events } = await storedWebhooks(stack, books.owner.me.tenantId);
    expect(events.map((e) => e.type)).toEqual(['revaluation.posted']);
    expect(events[0]!.payload).toMatchObject({ entryId: done.entryId, legalEntityId: books.owner.me.company.id, number: 2, entryDate: '2017-01-31', totalDebit: '10000.00', lineCount: 2 });
  });
});

describe('closePeriod revalues before its snapshot', () => {
  test('the close posts the revaluation at its date (requested by the close) and freezes the revalued balances', async () => {
    const books = await company();
    await books.ledger.post(entryBody('2017-01-05', [foreign('5210', 'debit', '800000.00', 'USD', '100'), { accountCode: '9010', credit: '800000.00' }] as never)).expect(201);
    const close = await books.ledger.close('2017-01-31').expect(202);
    const done = await waitForClose(books.ledger, close.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', failureReason: null });
    const [revaluation] = (await books.revaluations.list().expect(200)).body;
    expect(revaluation).toMatchObject({ revaluationDate: '2017-01-31', requestedBy: 'PERIOD_CLOSE', closeId: close.body.id, status: 'COMPLETED', gainTotal: '10000.00' });
    expect(done.entryCount).toBe(2);
    expect(done.balances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ accountCode: '5210', currency: 'USD', currencyBalance: '100.00', debitTotal: '810000.00', balance: '810000.00' }),
        expect.objectContaining({ accountCode: '9540', currency: null, creditTotal: '10000.00' }),
      ]),
    );
  });

  test('a close before a date revalued first: its adjustments are taken back out on that later date, so nothing counts twice', async () => {
    await storeCbuRate(stack, 'USD', '2018-05-01', '2000');
    await storeCbuRate(stack, 'USD', '2018-06-01', '2100');
    await storeCbuRate(stack, 'USD', '2018-07-01', '2200');
    const books = await company();
    await books.ledger.post(entryBody('2018-05-05', [foreign('5210', 'debit', '200000.00', 'USD', '100'), { accountCode: '8330', credit: '200000.00' }] as never)).expect(201);
    expect(await revalue(books, '2018-07-05')).toMatchObject({ gainTotal: '20000.00' });
    // A request for 10 June now is out of order; the close of 10 June revalues at its date all the same.
    await books.revaluations.post('2018-06-10').expect(409);
    const close = await books.ledger.close('2018-06-10').expect(202);
    expect((await waitForClose(books.ledger, close.body.id)).status).toBe('COMPLETED');
    const own = (await books.revaluations.list().expect(200)).body.find((r: { requestedBy: string }) => r.requestedBy === 'PERIOD_CLOSE');
    expect(own).toMatchObject({ revaluationDate: '2018-06-10', gainTotal: '10000.00' });
    expect(await carrying(books, '2018-06-10', '5210', 'USD')).toMatchObject({ carryingAmount: '210000.00' });
    expect(await carrying(books, '2018-07-05', '5210', 'USD')).toMatchObject({ carryingAmount: '220000.00' });
    const tb = (await books.ledger.trialBalance('2018-07-05').expect(200)).body;
    const net = (code: string) => numericToMinorUnits(tb.lines.find((l: { code: string }) => l.code === code)?.balance ?? '0');
    expect(formatMinorUnits(net('9540') - net('9620'))).toBe('20000.00');
    const kinds = (await books.ledger.list({ currency: 'USD' }).expect(200)).body.items.map((e: { kind: string; entryDate: string }) => [e.kind, e.entryDate]);
    expect(kinds).toEqual([
      ['POSTING', '2018-05-05'],
      ['REVALUATION', '2018-07-05'],
      ['REVALUATION', '2018-06-10'],
      ['REVALUATION', '2018-07-05'],
    ]);
  });

  test('a close whose revaluation has no rate fails with the reason and releases the cut-off', async () => {
    const books = await company();
    await books.ledger
      .post(entryBody('2018-03-10', [{ accountCode: '5210', debit: '100.00', currency: 'SEK', currencyAmount: '1', rate: '100', rateSource: 'MANUAL' }, { accountCode: '9010', credit: '100.00' }] as never))
      .expect(201);
    const close = await books.ledger.close('2018-03-31').expect(202);
    const done = await waitForClose(books.ledger, close.body.id);
    expect(done.status).toBe('FAILED');
    expect(done.failureReason).toMatch(/the revaluation at 2018-03-31 failed: rate-unavailable: no CBU rate is stored for SEK/);
    await books.ledger.post(entryBody('2018-03-31', [{ accountCode: '5110', debit: '1.00' }, { accountCode: '9010', credit: '1.00' }])).expect(201);
  });
});
