import { QueryTypes } from 'sequelize';
import type { TestStack } from './stack';
import { api, bearer, type Registered } from './clients';

/** A bank account of the right shape: bank code (MFO) 5 digits, account number 20. */
export const BANK_ACCOUNT = { bankCode: '00014', accountNumber: '20208000900100001010' };

/** The register's base path of the caller's company (or another company's, to see it refused). */
export const counterpartiesOf = (who: Registered, legalEntityId = who.me.company.id) => `/api/v1/counterparties/${legalEntityId}`;

export function createCounterparty(stack: TestStack, who: Registered, body: Record<string, unknown>) {
  return api(stack).post(counterpartiesOf(who)).set(...bearer(who.accessToken)).send(body);
}

export function updateCounterparty(stack: TestStack, who: Registered, id: string, body: Record<string, unknown>) {
  return api(stack).put(`${counterpartiesOf(who)}/${id}`).set(...bearer(who.accessToken)).send(body);
}

export function getCounterparty(stack: TestStack, who: Registered, id: string) {
  return api(stack).get(`${counterpartiesOf(who)}/${id}`).set(...bearer(who.accessToken));
}

/** The workspace's counterparty rows, read around row-level security. */
export async function storedCounterparties(stack: TestStack, who: Registered): Promise<Array<Record<string, unknown>>> {
  return stack.admin.query('SELECT * FROM counterparties WHERE tenant_id = :t ORDER BY name, id', { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT });
}

/** The workspace's counterparty audit events, oldest first. */
export async function counterpartyEvents(stack: TestStack, who: Registered): Promise<Array<{ action: string; category: string; subject_type: string; subject_id: string; details: string }>> {
  return stack.admin.query(
    "SELECT action, category, subject_type, subject_id, details FROM audit_events WHERE tenant_id = :t AND action LIKE 'counterparty.%' ORDER BY occurred_at, id",
    { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
  );
}
