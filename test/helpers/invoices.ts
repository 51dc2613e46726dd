import { QueryTypes } from 'sequelize';
import type { TestStack } from './stack';
import { api, bearer, type Registered } from './clients';
import { createCounterparty } from './counterparties';

/** Saves the company's accounting settings (GENERAL at 12 % unless told otherwise). */
export async function saveTaxSettings(stack: TestStack, who: Registered, settings: { taxRegime?: 'GENERAL' | 'SIMPLIFIED'; vatRate?: number } = {}): Promise<void> {
  const path = `/api/v1/accounting-settings/${who.me.company.id}`;
  const current = await api(stack).get(path).set(...bearer(who.accessToken)).expect(200);
  await api(stack)
    .put(path)
    .set(...bearer(who.accessToken))
    .send({
      depreciationMethod: 'STRAIGHT_LINE',
      inventoryValuationMethod: 'FIFO',
      taxRegime: settings.taxRegime ?? 'GENERAL',
      vatRate: settings.vatRate ?? 12,
      expectedVersion: current.body.version,
    })
    .expect(200);
}

/** A counterparty of the caller's company; returns its id. */
export async function aCounterparty(stack: TestStack, who: Registered, body: Record<string, unknown> = {}): Promise<string> {
  const res = await createCounterparty(stack, who, { name: `Counterparty ${Math.random().toString(36).slice(2, 8)}`, ...body }).expect(201);
  return res.body.id as string;
}

/** The invoices of the caller's company (or another company's, to see it refused). */
export function invoicesApi(stack: TestStack, who: Registered, legalEntityId = who.me.company.id, token = who.accessToken) {
  const base = `/api/v1/invoices/${legalEntityId}`;
  const auth = bearer(token);
  return {
    base,
    create: (body: Record<string, unknown>) => api(stack).post(base).set(...auth).send(body),
    list: (query: Record<string, string | number> = {}) => api(stack).get(base).query(query).set(...auth),
    get: (id: string) => api(stack).get(`${base}/${id}`).set(...auth),
    update: (id: string, body: Record<string, unknown>) => api(stack).put(`${base}/${id}`).set(...auth).send(body),
    remove: (id: string) => api(stack).delete(`${base}/${id}`).set(...auth),
    post: (id: string) => api(stack).post(`${base}/${id}/posting`).set(...auth),
    cancel: (id: string, body: Record<string, unknown>) => api(stack).post(`${base}/${id}/cancellation`).set(...auth).send(body),
  };
}

/** A SALES draft body of one line (quantity × price at the company's rate unless `lines` says otherwise). */
export function salesBody(counterpartyId: string, date: string, extra: Record<string, unknown> = {}) {
  return { kind: 'SALES', date, counterpartyId, lines: [{ description: 'Goods', quantity: '1', unitPrice: '1000.00' }], ...extra };
}

/** A PURCHASE draft body of one line on 1010 (materials) unless `lines` says otherwise. */
export function purchaseBody(counterpartyId: string, date: string, number: string, extra: Record<string, unknown> = {}) {
  return { kind: 'PURCHASE', number, date, counterpartyId, lines: [{ description: 'Materials', quantity: '1', unitPrice: '1000.00', account: '1010' }], ...extra };
}

/** The workspace's invoice audit events, oldest first. */
export async function invoiceEvents(stack: TestStack, who: Registered): Promise<Array<{ action: string; subject_id: string; details: string }>> {
  return stack.admin.query(
    "SELECT action, subject_id, details FROM audit_events WHERE tenant_id = :t AND action LIKE 'invoice.%' ORDER BY occurred_at, id",
    { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT },
  );
}
