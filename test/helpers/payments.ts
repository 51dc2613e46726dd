import { randomUUID } from 'node:crypto';
import type { TestStack } from './stack';
import { api, bearer, type Registered } from './clients';

/** The payments of the caller's company: `post` adds a fresh requestId and cash account 5110 unless the body names them. */
export function paymentsApi(stack: TestStack, who: Registered) {
  const base = `/api/v1/payments/${who.me.company.id}`;
  const auth = bearer(who.accessToken);
  return {
    post: (body: Record<string, unknown>) => api(stack).post(base).set(...auth).send({ requestId: randomUUID(), cashAccount: '5110', ...body }),
    postExact: (body: Record<string, unknown>) => api(stack).post(base).set(...auth).send(body),
    get: (id: string) => api(stack).get(`${base}/${id}`).set(...auth),
    list: (query: Record<string, string | number> = {}) => api(stack).get(base).query(query).set(...auth),
    allocate: (id: string, body: Record<string, unknown>) => api(stack).post(`${base}/${id}/allocations`).set(...auth).send(body),
    cancel: (id: string, body: Record<string, unknown>) => api(stack).post(`${base}/${id}/cancellation`).set(...auth).send(body),
  };
}

/** The aging report of the caller's company. */
export function agingOf(stack: TestStack, who: Registered, asOf: string, side: 'RECEIVABLE' | 'PAYABLE') {
  return api(stack).get(`/api/v1/ledger/${who.me.company.id}/reports/aging`).query({ asOf, side }).set(...bearer(who.accessToken));
}
