import { createOperationIndex, indexOperations, loadOpenApiDocument } from '../../api/openapi';

const doc = loadOpenApiDocument();

describe('the OpenAPI document', () => {
  test('every bearer operation names its permission (= operation id) and default roles that include ADMIN', () => {
    for (const op of indexOperations(doc).filter((o) => o.requiresBearer)) {
      expect(op.permission).toBe(op.operationId);
      expect(op.defaultRoles).toContain('ADMIN');
    }
  });

  test('operation ids are unique', () => {
    const ids = indexOperations(doc).map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('the index finds operations by method and concrete path', () => {
    const index = createOperationIndex(doc);
    expect(index.find('DELETE', '/api/v1/me/sessions/2f0b3c1e-0000-4000-8000-000000000000')?.operationId).toBe('revokeMySession');
    expect(index.find('GET', '/api/v1/me/')?.operationId).toBe('getCurrentUser');
    expect(index.find('GET', '/api/v1/me/sessions/x/y')).toBeUndefined();
  });

  test('a bearer operation without x-permission is refused at start-up', () => {
    const broken = structuredClone(doc);
    delete broken.paths['/api/v1/me'].get['x-permission'];
    expect(() => indexOperations(broken)).toThrow(/x-permission/);
  });
});
