import { createOperationIndex, indexOperations, loadOpenApiDocument } from '../../../contracts/operations';

const doc = loadOpenApiDocument();

describe('the OpenAPI document', () => {
  test('every bearer operation names its permission (= operation id) and default roles that include ADMIN', () => {
    for (const op of indexOperations(doc).filter((o) => o.requiresBearer)) {
      expect(op.permission).toBe(op.operationId);
      expect(op.defaultRoles).toContain('ADMIN');
    }
  });

  test('a security scheme the service does not enforce is refused, so no operation looks open by mistake', () => {
    const withScheme = (security: unknown) => ({ paths: { '/x': { get: { operationId: 'x', security } } } });
    expect(() => indexOperations(withScheme([{ oauth2: [] }]))).toThrow(/security scheme oauth2 is not enforced/);
    expect(indexOperations(withScheme([{ callbackToken: [] }]))[0]).toMatchObject({ requiresCallbackToken: true, requiresBearer: false, permission: null });
    expect(indexOperations(doc).filter((o) => o.requiresCallbackToken).map((o) => o.operationId)).toEqual(['receiveEmailEvents']);
  });

  test('operation ids are unique', () => {
    const ids = indexOperations(doc).map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('the index finds operations by method and concrete path', () => {
    const index = createOperationIndex(doc);
    expect(index.find('DELETE', '/api/v1/me/sessions/2f0b3c1e-0000-4000-8000-000000000000')?.operationId).toBe('revokeMySession');
    expect(index.find('GET', '/api/v1/me')?.operationId).toBe('getCurrentUser');
    expect(index.find('HEAD', '/api/v1/me')?.operationId).toBe('getCurrentUser');
    expect(index.find('GET', '/api/v1/me/sessions/x/y')).toBeUndefined();
  });

  test('"routing is case-sensitive and strict": another letter case or a trailing slash matches no operation', () => {
    const index = createOperationIndex(doc);
    expect(index.find('GET', '/api/v1/me/')).toBeUndefined();
    expect(index.find('GET', '/API/V1/ME')).toBeUndefined();
    expect(index.find('GET', '/api/v1/Accounting-Options')).toBeUndefined();
    expect(index.methodsAt('/api/v1/auth/login')).toEqual(['POST']);
    expect(index.methodsAt('/api/v1/auth/login/')).toEqual([]);
  });

  test('pathOf fills an operation\'s template, encoding each value, and refuses a missing one', () => {
    const index = createOperationIndex(doc);
    expect(index.pathOf('getJournalEntry', { legalEntityId: 'a b', entryId: 'e/1' })).toBe('/api/v1/ledger/a%20b/entries/e%2F1');
    expect(() => index.pathOf('getJournalEntry', { legalEntityId: 'x' })).toThrow(/entryId/);
  });

  test('a bearer operation without x-permission is refused at start-up', () => {
    const broken = structuredClone(doc);
    delete broken.paths['/api/v1/me'].get['x-permission'];
    expect(() => indexOperations(broken)).toThrow(/x-permission/);
  });
});
