import { api, bearer, type Registered } from './clients';
import type { TestStack } from './stack';

/**
 * Stores (or corrects) the CBU rate of a currency for a day, as a refresh would. The rates are shared by every
 * file of a run: each file keeps to dates of its own.
 */
export async function storeCbuRate(stack: TestStack, currency: string, effectiveDate: string, rate: string): Promise<void> {
  await stack.admin.query(
    `INSERT INTO exchange_rates (source, effective_date, currency_code, currency_name, rate, fetched_at)
     VALUES ('CBU', :effectiveDate, :currency, :currency, :rate, now())
     ON CONFLICT (source, effective_date, currency_code) DO UPDATE SET rate = EXCLUDED.rate`,
    { replacements: { currency, effectiveDate, rate } },
  );
}

export function revaluationApi(stack: TestStack, user: Registered) {
  const base = `/api/v1/ledger/${user.me.company.id}/revaluations`;
  const auth = bearer(user.accessToken);
  return {
    post: (revaluationDate: string, token = user.accessToken) => api(stack).post(base).set(...bearer(token)).send({ revaluationDate }),
    list: () => api(stack).get(base).set(...auth),
    get: (id: string) => api(stack).get(`${base}/${id}`).set(...auth),
  };
}

/** Polls a revaluation until it leaves RUNNING. */
export async function waitForRevaluation(revaluations: ReturnType<typeof revaluationApi>, id: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await revaluations.get(id).expect(200);
    if (res.body.status !== 'RUNNING') return res.body;
    if (Date.now() > deadline) throw new Error(`revaluation ${id} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
