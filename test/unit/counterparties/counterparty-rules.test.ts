import { counterpartyDetailsOf, identityOf, identityTaken } from '../../../core/counterparties/counterparties';
import { AppError } from '../../../core/shared/problems';

const BANK = { bankCode: '00014', accountNumber: '20208000900100001010' };

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('counterpartyDetailsOf: the stored form of a counterparty', () => {
  test('when only a name is given, then no numbers, no bank accounts, no address and terms of 0 days', () => {
    expect(counterpartyDetailsOf({ name: 'Foreign Buyer GmbH' })).toEqual({
      name: 'Foreign Buyer GmbH',
      tin: null,
      pinfl: null,
      vatRegistrationCode: null,
      bankAccounts: [],
      address: null,
      paymentTermsDays: 0,
    });
  });

  test('"the name is trimmed, not blank": white space around it goes; a blank name is 400 validation at /body/name', () => {
    expect(counterpartyDetailsOf({ name: ' \t Acme LLC\u00a0\n' }).name).toBe('Acme LLC');
    const err = refusal(() => counterpartyDetailsOf({ name: ' \u00a0\t ' }));
    expect(err).toMatchObject({ type: 'validation', status: 400, extensions: { errors: [{ path: '/body/name', message: 'must not be blank' }] } });
  });

  test('"at most one of tin and pinfl": both is 400 validation at /body/pinfl; one or neither is fine, null as absent', () => {
    const err = refusal(() => counterpartyDetailsOf({ name: 'x', tin: '301234567', pinfl: '31234567890123' }));
    expect(err).toMatchObject({ type: 'validation', extensions: { errors: [{ path: '/body/pinfl' }] } });
    expect(counterpartyDetailsOf({ name: 'x', tin: '301234567', pinfl: null })).toMatchObject({ tin: '301234567', pinfl: null });
    expect(counterpartyDetailsOf({ name: 'x', tin: null, pinfl: '31234567890123' })).toMatchObject({ tin: null, pinfl: '31234567890123' });
  });

  test('"no duplicate bank accounts": the same bank code and account number twice is 400 at the repeat; another bank is another account', () => {
    const err = refusal(() => counterpartyDetailsOf({ name: 'x', bankAccounts: [BANK, { ...BANK, bankCode: '00873' }, { ...BANK }] }));
    expect(err).toMatchObject({ type: 'validation', extensions: { errors: [{ path: '/body/bankAccounts/2' }] } });
    expect(counterpartyDetailsOf({ name: 'x', bankAccounts: [BANK, { ...BANK, bankCode: '00873' }] }).bankAccounts).toHaveLength(2);
  });

  test('bank accounts keep only their two fields, in the order given', () => {
    const extra = { ...BANK, note: 'main' } as typeof BANK;
    expect(counterpartyDetailsOf({ name: 'x', bankAccounts: [extra] }).bankAccounts).toEqual([BANK]);
  });

  test('an address is trimmed; a blank one is none', () => {
    expect(counterpartyDetailsOf({ name: 'x', address: '  Tashkent, Amir Temur 1 ' }).address).toBe('Tashkent, Amir Temur 1');
    expect(counterpartyDetailsOf({ name: 'x', address: '   ' }).address).toBeNull();
    expect(counterpartyDetailsOf({ name: 'x', address: null }).address).toBeNull();
  });
});

describe('identityOf and identityTaken', () => {
  test('the number a duplicate is about: the TIN, else the PINFL, else none', () => {
    expect(identityOf({ tin: '301234567', pinfl: null })).toEqual({ field: 'tin', value: '301234567' });
    expect(identityOf({ tin: null, pinfl: '31234567890123' })).toEqual({ field: 'pinfl', value: '31234567890123' });
    expect(identityOf({ tin: null, pinfl: null })).toBeNull();
  });

  test('409 counterparty-tin-exists names the field and the number', () => {
    expect(identityTaken('tin', '301234567')).toMatchObject({ type: 'counterparty-tin-exists', status: 409, extensions: { tin: '301234567' } });
    expect(identityTaken('pinfl', '31234567890123')).toMatchObject({ type: 'counterparty-tin-exists', extensions: { pinfl: '31234567890123' } });
  });
});
