import { QueryTypes } from 'sequelize';
import type { TestStack } from './stack';
import { api, bearer, type Registered } from './clients';

/** A company bank account of the right shape: bank code (MFO) 5 digits, account number 20, in UZS. */
export const MAIN_ACCOUNT = { bankCode: '00014', accountNumber: '20208000100100001001', name: 'Main settlement account' };

/** The register's base path of the caller's company (or another company's, to see it refused). */
export const bankAccountsOf = (who: Registered, legalEntityId = who.me.company.id) => `/api/v1/bank-accounts/${legalEntityId}`;

export function createBankAccount(stack: TestStack, who: Registered, body: Record<string, unknown>) {
  return api(stack).post(bankAccountsOf(who)).set(...bearer(who.accessToken)).send(body);
}

export function updateBankAccount(stack: TestStack, who: Registered, id: string, body: Record<string, unknown>) {
  return api(stack).put(`${bankAccountsOf(who)}/${id}`).set(...bearer(who.accessToken)).send(body);
}

export function getBankAccount(stack: TestStack, who: Registered, id: string) {
  return api(stack).get(`${bankAccountsOf(who)}/${id}`).set(...bearer(who.accessToken));
}

/** The workspace's bank account rows, read around row-level security. */
export async function storedBankAccounts(stack: TestStack, who: Registered): Promise<Array<Record<string, unknown>>> {
  return stack.admin.query('SELECT * FROM bank_accounts WHERE tenant_id = :t ORDER BY name, id', { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT });
}

/** The workspace's bank account audit events, oldest first. */
export async function bankAccountEvents(stack: TestStack, who: Registered): Promise<Array<{ action: string; category: string; subject_type: string; subject_id: string; details: string }>> {
  return stack.admin.query(
    "SELECT action, category, subject_type, subject_id, details FROM audit_events WHERE tenant_id = :t AND action LIKE 'bank-account.%' ORDER BY occurred_at, id",
    { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
  );
}
