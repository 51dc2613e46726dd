import Decimal from 'decimal.js';
import { parseBankStatement, type ParseStatementOptions } from '../../../adapters/bank-statements';
import { StatementFormatError, type ParsedLine } from '../../../core/bank-statements/statements';
import type { Statement } from './render';

// One November statement of a Tashkent company's UZS account, written by the tests in every format.

export const closing = (opening: string, lines: ParsedLine[]) =>
  lines.reduce((total, l) => (l.direction === 'IN' ? total.plus(l.amount) : total.minus(l.amount)), new Decimal(opening)).toFixed(2);

export const fee: ParsedLine = { date: '2026-11-20', direction: 'OUT', amount: '5000.00', counterpartyName: 'АКБ «Капиталбанк»', purpose: 'Комиссия за обслуживание счёта' };

const lines: ParsedLine[] = [
  {
    date: '2026-11-03',
    direction: 'IN',
    amount: '4500000.00',
    reference: 'B2611030000154',
    counterpartyName: 'ООО «Тошкент Савдо»',
    counterpartyTin: '302456789',
    counterpartyAccount: '20208000400987654002',
    counterpartyBankCode: '00873',
    purpose: 'Оплата по счёту-фактуре № 17 от 01.11.2026 за поставленный товар, в т.ч. НДС 12% 482142.86 сум',
    documentNumber: '154',
  },
  {
    date: '2026-11-05',
    direction: 'OUT',
    amount: '1200000.50',
    reference: 'B2611050000031',
    counterpartyName: 'ЧП «Ўзбекистон Ижара»',
    counterpartyTin: '305111222',
    counterpartyAccount: '20208000100555666003',
    counterpartyBankCode: '00401',
    purpose: 'Аренда офиса за ноябрь 2026 года по договору № 5 от 10.01.2025',
    documentNumber: '31',
  },
  // Two bank fees alike in every field: a file may hold genuinely identical rows, and both are kept.
  fee,
  { ...fee },
];

export const statement: Statement = {
  accountNumber: '20208000900123456001',
  bankCode: '00014',
  currency: 'UZS',
  periodFrom: '2026-11-01',
  periodTo: '2026-11-30',
  openingBalance: '1250000.00',
  closingBalance: closing('1250000.00', lines),
  lines,
};


/** The StatementFormatError a file is refused with (the test fails when it is read, or fails otherwise). */
export async function refusal(bytes: Uint8Array, options?: ParseStatementOptions): Promise<StatementFormatError> {
  const error: unknown = await parseBankStatement(bytes, options).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof StatementFormatError)) throw new Error(`expected a StatementFormatError, got ${String(error)}`);
  return error;
}
