import { ACCOUNT_TYPES, foreignBalance, normalBalance, normalSideOf } from '../../../core/ledger/accounts';

describe('core/ledger/accounts', () => {
  test('assets and expenses grow on the debit side; contra-assets, liabilities, equity and income on the credit side', () => {
    expect(Object.fromEntries(ACCOUNT_TYPES.map((t) => [t, normalSideOf(t)]))).toEqual({
      ASSET: 'DEBIT',
      CONTRA_ASSET: 'CREDIT',
      LIABILITY: 'CREDIT',
      EQUITY: 'CREDIT',
      INCOME: 'CREDIT',
      EXPENSE: 'DEBIT',
    });
  });

  test('a balance is shown on the normal side: debit minus credit for a debit-side account, the reverse otherwise', () => {
    expect(normalBalance('ASSET', 500n, 200n)).toBe(300n);
    expect(normalBalance('LIABILITY', 500n, 200n)).toBe(-300n);
    expect(normalBalance('INCOME', 100n, 900n)).toBe(800n);
    // An account the chart does not know reads as a debit-side one.
    expect(normalBalance(undefined, 100n, 900n)).toBe(-800n);
  });

  test('a foreign balance, stored debit positive, is shown on the normal side exactly', () => {
    expect(foreignBalance('ASSET', '100.125')).toBe('100.125');
    expect(foreignBalance('LIABILITY', '100.125')).toBe('-100.125');
    expect(foreignBalance('EQUITY', '-0.1')).toBe('0.1');
    expect(foreignBalance(undefined, '-7')).toBe('-7');
  });
});
