import { randomUUID } from 'node:crypto';
import { createOperationIndex, loadOpenApiDocument } from '../../../contracts/operations';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { ledgerApi, simpleEntry } from '../../helpers/ledger';
import { getQueryParameters } from '../../helpers/operations';

// "Dates in year 0 or 1 answer 500" (an entry dated 0000-01-01, Form 1 at 0001-01-01, Form 2 and the turnover
// sheet of year 0). Every `format: date` value is bounded in one place, 1900-01-01..9999-12-31: outside it a
// 400 validation problem, at its edges an answer that is not a 500.

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const doc = loadOpenApiDocument();
const index = createOperationIndex(doc);

/** GET operations with a `format: date` query parameter, each with the parameter's name. */
const dateQueries = getQueryParameters(doc, index, (schema) => schema.format === 'date');

const OUTSIDE = ['0000-01-01', '0001-01-01', '1899-12-31'];

describe('every format: date value is a day from 1900-01-01 to 9999-12-31', () => {
  test('the document has date query parameters to check', () => {
    expect(dateQueries.map(([id, name]) => `${id}.${name}`)).toEqual(
      expect.arrayContaining(['getTrialBalance.asOf', 'getTurnoverSheet.from', 'getBalanceSheet.asOf']),
    );
  });

  test.each(dateQueries)('%s: %s outside the bounds is a 400 validation problem, at the bounds no 500', async (_id, name, op) => {
    const path = index.pathOf(op.operationId, { legalEntityId: user.me.company.id, code: '5110', counterpartyId: randomUUID(), bankAccountId: randomUUID(), assetId: randomUUID() });
    for (const value of OUTSIDE) {
      const res = await api(stack).get(`${path}?${name}=${value}`).set(...bearer(user.accessToken));
      expect({ value, status: res.status, type: res.body.type }).toEqual({ value, status: 400, type: expect.stringContaining('validation') });
    }
    for (const value of ['1900-01-01', '9999-12-31']) {
      const res = await api(stack).get(`${path}?${name}=${value}`).set(...bearer(user.accessToken));
      expect({ value, answer: res.status < 500 ? 'not a 500' : res.body }).toEqual({ value, answer: 'not a 500' });
    }
  });

  test('an entry dated 0000-01-01 or 0001-01-01 is a 400 and writes nothing', async () => {
    const ledger = ledgerApi(stack, user);
    for (const date of OUTSIDE) {
      const res = await ledger.post(simpleEntry(date, '10.00'));
      expect({ date, status: res.status, type: res.body.type }).toEqual({ date, status: 400, type: expect.stringContaining('validation') });
    }
    expect((await ledger.list().expect(200)).body.items).toEqual([]);
  });

  test('Form 1 at 0001-01-01, Form 2 and the turnover sheet of year 0 are 400s', async () => {
    const ledger = ledgerApi(stack, user);
    const answers = await Promise.all([
      ledger.report('balance-sheet', { asOf: '0001-01-01' }),
      ledger.report('financial-results', { from: '0000-01-01', to: '0000-12-31' }),
      ledger.turnoverSheet('0000-01-01', '0000-12-31'),
    ]);
    expect(answers.map((r) => r.status)).toEqual([400, 400, 400]);
  });

  test('at the edges: a statement of 1900 has no prior year (400), 1901 and 9999 answer; entries and sheets of 1900 and 9999 too', async () => {
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('1900-01-01', '10.00')).expect(201);
    await ledger.post(simpleEntry('9999-12-31', '20.00')).expect(201);
    const refused = await Promise.all([
      ledger.report('balance-sheet', { asOf: '1900-12-31' }),
      ledger.report('financial-results', { from: '1900-01-01', to: '1900-12-31' }),
    ]);
    expect(refused.map((r) => [r.status, r.body.errors?.[0]?.path])).toEqual([
      [400, '/query/asOf'],
      [400, '/query/from'],
    ]);
    const answered = await Promise.all([
      ledger.report('balance-sheet', { asOf: '1901-01-01' }),
      ledger.report('balance-sheet', { asOf: '9999-12-31' }),
      ledger.report('financial-results', { from: '9999-01-01', to: '9999-12-31' }),
      ledger.turnoverSheet('1900-01-01', '1900-12-31'),
      ledger.trialBalance('9999-12-31'),
      ledger.accountStatement({ accountCode: '5110', from: '9999-01-01', to: '9999-12-31' }),
    ]);
    expect(answered.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answered[1]!.body.priorTo).toBe('9998-12-31');
  });
});
