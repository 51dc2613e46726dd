import { randomUUID } from 'node:crypto';
import type { Test } from 'supertest';
import { isSettlementAccount } from '../../core/ledger/accounts';
import { formatMinorUnits, numericToMinorUnits } from '../../core/ledger/money';
import { api, bearer, type Registered } from './clients';
import { XLSX, asBuffer } from './exports';
import { ledgerApi } from './ledger';
import type { TestStack } from './stack';


/** The payments of the caller's company. */
export function paymentsApi(stack: TestStack, who: Registered) {
  const base = `/api/v1/payments/${who.me.company.id}`;
  const auth = bearer(who.accessToken);
  return {
    post: (body: Record<string, unknown>) => api(stack).post(base).set(...auth).send({ requestId: randomUUID(), cashAccount: '5110', ...body }),
    allocate: (id: string, body: Record<string, unknown>) => api(stack).post(`${base}/${id}/allocations`).set(...auth).send(body),
    cancel: (id: string, date: string) => api(stack).post(`${base}/${id}/cancellation`).set(...auth).send({ requestId: randomUUID(), date, reason: 'Reconciliation test' }),
  };
}

/** getReconciliationStatement of a counterparty, as JSON unless `accept` names an export type. */
export function reconciliationOf(
  stack: TestStack,
  who: Registered,
  counterpartyId: string,
  query: Record<string, string | number>,
  options: { accept?: string; legalEntityId?: string } = {},
): Test {
  const req = api(stack)
    .get(`/api/v1/counterparties/${options.legalEntityId ?? who.me.company.id}/${counterpartyId}/reconciliation-statement`)
    .query(query)
    .set(...bearer(who.accessToken));
  if (options.accept === undefined) return req;
  req.set('Accept', options.accept);
  return options.accept === XLSX ? asBuffer(req) : req;
}

export interface SettlementFigures {
  opening: string;
  turnoverDebit: string;
  turnoverCredit: string;
  closing: string;
}

/**
 * The counterparty's net figures over the settlement accounts as the turnover sheet filtered by counterpartyId
 * has them (each row's balance on its own side, so net = debit − credit), and the accounts of its rows.
 */
export async function sheetFigures(stack: TestStack, who: Registered, counterpartyId: string, from: string, to: string): Promise<SettlementFigures & { accounts: string[] }> {
  const sheet = (await ledgerApi(stack, who).turnoverSheet(from, to, { counterpartyId }).expect(200)).body as { rows: Array<Record<string, string>> };
  const sum = (field: string) => sheet.rows.filter((r) => isSettlementAccount(r.accountCode!)).reduce((s, r) => s + numericToMinorUnits(r[field]!), 0n);
  return {
    opening: formatMinorUnits(sum('openingDebit') - sum('openingCredit')),
    turnoverDebit: formatMinorUnits(sum('turnoverDebit')),
    turnoverCredit: formatMinorUnits(sum('turnoverCredit')),
    closing: formatMinorUnits(sum('closingDebit') - sum('closingCredit')),
    accounts: sheet.rows.map((r) => r.accountCode!),
  };
}
