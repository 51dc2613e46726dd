import { QueryTypes } from 'sequelize';
import type { TestStack } from './stack';
import { api, bearer, type Registered } from './clients';
import { bankAccountsOf } from './bank-accounts';

/** The statements and lines of one of the caller's bank accounts. */
export function bankStatementsApi(stack: TestStack, who: Registered, bankAccountId: string, legalEntityId = who.me.company.id) {
  const base = `${bankAccountsOf(who, legalEntityId)}/${bankAccountId}`;
  const auth = bearer(who.accessToken);
  return {
    base,
    import: (file: Buffer, contentType = 'text/plain') => api(stack).post(`${base}/statements`).set(...auth).set('Content-Type', contentType).send(file),
    getImport: (id: string) => api(stack).get(`${base}/statements/${id}`).set(...auth),
    lines: (query: Record<string, string | number> = {}) => api(stack).get(`${base}/lines`).query(query).set(...auth),
    match: (lineId: string, body: Record<string, unknown>) => api(stack).post(`${base}/lines/${lineId}/match`).set(...auth).send(body),
    unmatch: (lineId: string) => api(stack).post(`${base}/lines/${lineId}/unmatch`).set(...auth),
  };
}

/** Polls an import until it leaves RUNNING; returns it. */
export async function waitForImport(statements: ReturnType<typeof bankStatementsApi>, id: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await statements.getImport(id).expect(200);
    if (res.body.status !== 'RUNNING') return res.body;
    if (Date.now() > deadline) throw new Error(`import ${id} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How many lines the workspace has stored, read around row-level security. */
export async function storedLineCount(stack: TestStack, who: Registered): Promise<number> {
  const [row] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM bank_lines WHERE tenant_id = :t', { replacements: { t: who.me.tenantId }, type: QueryTypes.SELECT });
  return row!.n;
}
