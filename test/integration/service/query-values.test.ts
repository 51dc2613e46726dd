import { createOperationIndex, loadOpenApiDocument } from '../../../contracts/operations';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { getQueryParameters } from '../../helpers/operations';

// Query values as browsers write them: the characters *, !, ', (, ) and ~ are not encoded. Every free-text
// query parameter of the document takes them as literal text (bug: `?q=a*` answered 400 "must be url encoded").

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

/** GET operations with a query parameter whose schema is a plain string (no format, pattern or enum). */
const freeText = getQueryParameters(doc, index, (schema) => schema.type === 'string' && !schema.format && !schema.pattern && !schema.enum);

describe('free-text query values as browsers send them', () => {
  test('the document has free-text query parameters to check', () => {
    expect(freeText.map(([id, name]) => `${id}.${name}`)).toEqual(
      expect.arrayContaining(['listCompanyAccounts.q', 'listCompanySubaccounts.q', 'listAuditActors.q', 'listAuditEvents.action']),
    );
  });

  test.each(freeText)("%s: %s=a*!'()~ unencoded is literal text, not a 400", async (_id, name, op) => {
    const path = index.pathOf(op.operationId, { legalEntityId: user.me.company.id, code: '5110' });
    const res = await api(stack).get(`${path}?${name}=a*!'()~`).set(...bearer(user.accessToken));
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.objectContaining({ items: [] }) });
  });

  test('the unencoded and the URLSearchParams-encoded form of one value answer the same', async () => {
    const path = index.pathOf('listCompanyAccounts', { legalEntityId: user.me.company.id });
    const raw = await api(stack).get(`${path}?q=cash(`).set(...bearer(user.accessToken)).expect(200);
    const encoded = await api(stack).get(`${path}?${new URLSearchParams({ q: 'cash(' })}`).set(...bearer(user.accessToken)).expect(200);
    expect(raw.body).toEqual(encoded.body);
  });
});
