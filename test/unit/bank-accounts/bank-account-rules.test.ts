import { accountNumberTaken, bankAccountDetailsOf, glAccountProblem } from '../../../core/bank-accounts/bank-accounts';

const BASE = { bankCode: '00014', accountNumber: '20208000100100001001', name: 'Main account' };

describe('bankAccountDetailsOf', () => {
  test('"UZS default, 5110 for UZS": nothing but the required fields gives a UZS account on 5110, the name trimmed', () => {
    expect(bankAccountDetailsOf({ ...BASE, name: '  Main account \t' })).toEqual({ ...BASE, currency: 'UZS', accountCode: '5110' });
  });

  test('"5210 for foreign by default": a foreign currency without a GL account is kept on 5210', () => {
    expect(bankAccountDetailsOf({ ...BASE, currency: 'USD' })).toMatchObject({ currency: 'USD', accountCode: '5210' });
  });

  test('a GL account given is kept, whatever the currency', () => {
    expect(bankAccountDetailsOf({ ...BASE, currency: 'EUR', accountCode: '5220' }).accountCode).toBe('5220');
  });

  test.each(['5100', '5290'])('the range 5100–5290 is inclusive: %s passes here (the chart judges headers and unknown codes)', (accountCode) => {
    expect(bankAccountDetailsOf({ ...BASE, accountCode }).accountCode).toBe(accountCode);
  });

  test.each(['5099', '5291', '5010', '5510', '0110'])('"a GL account outside 5100–5290" (%s) is 400 validation at /body/accountCode', (accountCode) => {
    expect(() => bankAccountDetailsOf({ ...BASE, accountCode })).toThrow(expect.objectContaining({ type: 'validation', extensions: { errors: [expect.objectContaining({ path: '/body/accountCode' })] } }));
  });

  test('a blank name is 400 validation at /body/name', () => {
    expect(() => bankAccountDetailsOf({ ...BASE, name: ' \u00a0 ' })).toThrow(expect.objectContaining({ type: 'validation', extensions: { errors: [expect.objectContaining({ path: '/body/name' })] } }));
  });

  test('a currency the ledger does not know is 400 validation at /body/currency', () => {
    expect(() => bankAccountDetailsOf({ ...BASE, currency: 'XYZ' })).toThrow(expect.objectContaining({ type: 'validation', extensions: { errors: [expect.objectContaining({ path: '/body/currency' })] } }));
  });
});

describe('glAccountProblem', () => {
  test('a detail account of the chart is allowed', () => {
    expect(glAccountProblem('5110', { kind: 'detail' })).toBeNull();
  });

  test('an account the chart does not have is 400 unknown-account', () => {
    expect(glAccountProblem('5150', { kind: 'absent' })).toMatchObject({ type: 'unknown-account', status: 400 });
  });

  test('a header is 400 header-account naming its detail accounts', () => {
    const problem = glAccountProblem('5200', { kind: 'header', details: ['5210', '5220'] });
    expect(problem).toMatchObject({ type: 'header-account', status: 400 });
    expect(problem!.detail).toContain('5210, 5220');
  });
});

test('409 bank-account-number-exists names the number', () => {
  expect(accountNumberTaken(BASE.accountNumber)).toMatchObject({ type: 'bank-account-number-exists', status: 409, extensions: { accountNumber: BASE.accountNumber } });
});
