import { randomUUID } from 'node:crypto';
import { createOperationIndex, loadOpenApiDocument, type OperationInfo } from '../../../contracts/operations';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';

// Generated from the document: every operation, in another letter case and with a trailing slash, is
// refused (never served, never a 5xx), with and without a token; the exact path of a bearer operation
// without a token is 401.

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

/** The template with its parameters filled: the caller's own company where one is named, a fresh uuid elsewhere. */
function fill(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'legalEntityId' ? user.me.company.id : name === 'code' ? '5110' : randomUUID()));
}

const concretePath = (op: OperationInfo) => fill(op.path);

/** Changes the letter case of the template's static segments only: a parameter value is data, not the path. */
function variants(template: string): Array<[string, string]> {
  const segments = template.split('/');
  const lastStatic = segments.map((s) => !s.startsWith('{') && s !== '').lastIndexOf(true);
  const onStatic = (change: (segment: string, i: number) => string) =>
    fill(segments.map((s, i) => (s.startsWith('{') ? s : change(s, i))).join('/'));
  return [
    ['upper case', onStatic((s) => s.toUpperCase())],
    ['first segment in upper case', onStatic((s, i) => (i === 1 ? s.toUpperCase() : s))],
    ['last static segment capitalised', onStatic((s, i) => (i === lastStatic ? s.charAt(0).toUpperCase() + s.slice(1) : s))],
    ['trailing slash', `${fill(template)}/`],
  ];
}

function send(op: OperationInfo, path: string, token?: string) {
  const method = op.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete' | 'patch';
  let req = api(stack)[method](path);
  if (token) req = req.set(...bearer(token));
  return method === 'get' ? req : req.send({});
}

const operations = createOperationIndex(loadOpenApiDocument()).operations;

describe('routing by operation id is case-sensitive, strict and deny-by-default', () => {
  test.each(operations.map((op) => [op.operationId, op] as const))('%s: path variants are never served and never a 5xx', async (_id, op) => {
    for (const [name, variant] of variants(op.path)) {
      for (const token of [undefined, user.accessToken]) {
        const res = await send(op, variant, token);
        const what = `${op.method} ${variant} (${name}, ${token ? 'with' : 'without'} a token) answered ${res.status}`;
        expect({ what, served: res.status < 300 }).toEqual({ what, served: false });
        expect({ what, serverError: res.status >= 500 }).toEqual({ what, serverError: false });
      }
    }
  });

  test.each(operations.filter((op) => op.requiresBearer).map((op) => [op.operationId, op] as const))(
    '%s: without a token the exact path is 401',
    async (_id, op) => {
      const res = await send(op, concretePath(op));
      expect(res.status).toBe(401);
    },
  );

  test('"GET /API/V1/ACCOUNTING-OPTIONS answers 200 without a token" no more: 404 problem', async () => {
    const res = await api(stack).get('/API/V1/ACCOUNTING-OPTIONS');
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('/problems/not-found');
  });

  test('a path the document does not have with another method of a documented one is 405 with Allow', async () => {
    const res = await api(stack).delete('/api/v1/auth/login');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  test('OPTIONS is not answered by the framework on its own: 405', async () => {
    const res = await api(stack).options('/api/v1/me');
    expect(res.status).toBe(405);
  });
});
