import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createOperationIndex, loadOpenApiDocument, type OperationInfo } from '../../../contracts/operations';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';

// Generated from the document: every operation gets hostile input (every query parameter through
// URLSearchParams, oversized and deeply nested bodies, bodies whose every value is out of range) and
// must answer a 4xx problem, never a 5xx, and change nothing.

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const doc = loadOpenApiDocument();
const index = createOperationIndex(doc);
type Schema = Record<string, any>;
const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;

function fill(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'legalEntityId' ? user.me.company.id : name === 'code' ? '5110' : randomUUID()));
}

function resolve(schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref) return resolve(schemas[String(schema.$ref).split('/').pop()!]);
  return schema;
}

/** A body of the operation's shape whose every value is out of range: huge amounts, long strings, extreme numbers. */
function overflowing(schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(schema);
  if (depth > 6) return null;
  if (s.allOf) return Object.assign({}, ...s.allOf.map((part: Schema) => overflowing(part, depth + 1)));
  if (s.oneOf || s.anyOf) return overflowing((s.oneOf ?? s.anyOf)[0], depth + 1);
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, overflowing(v as Schema, depth + 1)]));
    case 'array':
      return Array.from({ length: 3 }, () => overflowing(s.items, depth + 1));
    case 'integer':
    case 'number':
      return 1e308;
    case 'boolean':
      return true;
    default:
      // One past the longest a string may be; without a limit, more digits than any amount holds.
      if (s.enum) return s.enum[0];
      return typeof s.maxLength === 'number' ? '9'.repeat(s.maxLength + 1) : '9'.repeat(40) + '.99';
  }
}

const bodyTypes = (op: OperationInfo): string[] => Object.keys(doc.paths[op.path][op.method.toLowerCase()].requestBody?.content ?? {});
// JSON bodies; a file sent as it is (a bank statement) is checked on its own below.
const withBody = index.operations.filter((op) => bodyTypes(op).includes('application/json'));
const withFile = index.operations.filter((op) => bodyTypes(op).length > 0 && !bodyTypes(op).includes('application/json'));
const withQuery = index.operations.flatMap((op) =>
  ((doc.paths[op.path][op.method.toLowerCase()].parameters ?? []) as Schema[])
    .filter((p) => p.in === 'query')
    .map((p) => [op.operationId, p.name as string, op] as const),
);

const HOSTILE_VALUES = ["a*!'()~", '%', '%zz', '&=?#', 'x'.repeat(5000), '-1', '99999999999999999999999', '2025-02-30', "'; DROP TABLE tenants; --", '\u0000', '🙂'];

function send(op: OperationInfo, path: string, body?: string | object) {
  const method = op.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete' | 'patch';
  const req = api(stack)[method](path).set(...bearer(user.accessToken));
  // A provider callback is reached only on the callback host with the shared token.
  if (op.requiresCallbackToken) req.set('Host', `callbacks.${stack.config.baseDomain}`).set('X-Auth', stack.config.mail.callbackToken);
  if (body === undefined) return req;
  return typeof body === 'string' ? req.set('Content-Type', 'application/json').send(body) : req.send(body);
}

/**
 * What "nothing changed" is measured by: a digest of every row the caller's workspace or identity owns, in
 * every table (so other test files writing their own rows at the same time do not disturb it). The two
 * counters whose purpose is to count refused requests are left out: request_limits, and factor_attempts
 * (a wrong current password is a failed guess and must count).
 */
async function fingerprint(): Promise<Record<string, string>> {
  const tables = await stack.admin.query<{ name: string; scope: string }>(
    `SELECT c.relname AS name,
            CASE WHEN EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped) THEN 'tenant_id'
                 WHEN EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'identity_id' AND NOT a.attisdropped) THEN 'identity_id'
                 WHEN c.relname = 'tenants' THEN 'id'
                 WHEN c.relname = 'identities' THEN 'identity'
                 WHEN c.relname = 'workflow_starts' THEN 'tenant_attribute'
                 ELSE '' END AS scope
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname NOT IN ('schema_migrations', 'request_limits', 'factor_attempts')
      ORDER BY 1`,
    { type: QueryTypes.SELECT },
  );
  const where: Record<string, string> = {
    tenant_id: 'tenant_id = :tenantId',
    id: 'id = :tenantId',
    tenant_attribute: 'tenant_attribute = :tenantId',
    identity_id: 'identity_id = :identityId',
    identity: 'id = :identityId',
  };
  const digest: Record<string, string> = {};
  for (const { name, scope } of tables) {
    if (!scope) continue;
    const [row] = await stack.admin.query<{ d: string }>(
      `SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS d FROM ${name} t WHERE ${where[scope]}`,
      { replacements: { tenantId: user.me.tenantId, identityId: user.me.globalUserId }, type: QueryTypes.SELECT },
    );
    digest[name] = row!.d;
  }
  return digest;
}

function expectRefused(res: { status: number; headers: Record<string, string> }, label: string): void {
  expect({ label, status: res.status, problem: res.status >= 400 && /application\/problem\+json/.test(res.headers['content-type'] ?? '') }).toEqual({
    label,
    status: expect.any(Number),
    problem: true,
  });
  expect({ label, serverError: res.status >= 500 }).toEqual({ label, serverError: false });
}

describe('bad input is never a 5xx and changes nothing (generated from the document)', () => {
  test('the document has operations with bodies and query parameters to check', () => {
    expect(withBody.length).toBeGreaterThan(10);
    expect(withQuery.length).toBeGreaterThan(10);
  });

  test.each(withQuery)('%s: %s with hostile values (URLSearchParams-encoded) answers without a 5xx', async (_id, name, op) => {
    for (const value of HOSTILE_VALUES) {
      const res = await send(op, `${fill(op.path)}?${new URLSearchParams({ [name]: value })}`);
      expect({ value: value.slice(0, 20), status: res.status < 500 }).toEqual({ value: value.slice(0, 20), status: true });
    }
  });

  test('bodies: oversized (413), nested 100,000 levels deep (400), and every value out of range (400): no 5xx, nothing written', async () => {
    const before = await fingerprint();
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const huge = JSON.stringify({ pad: 'x'.repeat(300 * 1024) });
    // The provider's event batches may reach 1 MB.
    const hugeBatch = JSON.stringify([{ pad: 'x'.repeat(1100 * 1024) }]);
    for (const op of withBody) {
      const path = fill(op.path);
      const oversized = await send(op, path, op.requiresCallbackToken ? hugeBatch : huge);
      expectRefused(oversized, `${op.operationId} oversized`);
      expect({ op: op.operationId, status: oversized.status }).toEqual({ op: op.operationId, status: 413 });
      const nested = await send(op, path, deep);
      expectRefused(nested, `${op.operationId} nested`);
      expect({ op: op.operationId, status: nested.status }).toEqual({ op: op.operationId, status: 400 });
      const schema = doc.paths[op.path][op.method.toLowerCase()].requestBody.content['application/json']?.schema;
      // Out of range for the business, though not always for the schema (logout of an unknown token is a 204):
      // whatever the answer, it is no 5xx and writes nothing.
      const out = await send(op, path, overflowing(schema) as object);
      expect({ op: op.operationId, serverError: out.status >= 500 }).toEqual({ op: op.operationId, serverError: false });
    }
    expect(await fingerprint()).toEqual(before);
  });

  test('file bodies: over their 20 MiB (413), JSON instead of the file (415), empty (400): no 5xx, nothing written', async () => {
    expect(withFile.map((op) => op.operationId)).toEqual(['importBankStatement']);
    const before = await fingerprint();
    for (const op of withFile) {
      const path = fill(op.path);
      const [type] = bodyTypes(op);
      const sendFile = (bytes: Buffer, contentType: string) => {
        const method = op.method.toLowerCase() as 'post';
        return api(stack)[method](path).set(...bearer(user.accessToken)).set('Content-Type', contentType).send(bytes);
      };
      for (const [label, res, status] of [
        ['oversized', await sendFile(Buffer.alloc(20 * 1024 * 1024 + 1, 0x41), type!), 413],
        ['json', await sendFile(Buffer.from(JSON.stringify({ pad: 'x' })), 'application/json'), 415],
        ['empty', await sendFile(Buffer.alloc(0), type!), 400],
      ] as const) {
        expectRefused(res, `${op.operationId} ${label}`);
        expect({ op: op.operationId, label, status: res.status }).toEqual({ op: op.operationId, label, status });
      }
    }
    expect(await fingerprint()).toEqual(before);
  });

  test('an entry whose amounts overflow the stored precision is a 400, and nothing is written', async () => {
    const before = await fingerprint();
    const lines = Array.from({ length: 250 }, () => ({ accountCode: '5110', debit: '9999999999999999.99' }));
    lines.push({ accountCode: '9010', credit: '9999999999999999.99' } as never);
    const res = await api(stack)
      .post(`/api/v1/ledger/${user.me.company.id}/entries`)
      .set(...bearer(user.accessToken))
      .send({ requestId: randomUUID(), entryDate: '2025-01-01', description: 'overflow', lines });
    expect(res.status).toBe(400);
    expect(await fingerprint()).toEqual(before);
  });
});
