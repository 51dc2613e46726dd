import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { isRoleCode, type RoleCode } from '../core/organisation/roles';
import type { operations } from './openapi';

// The operation catalogue, read from the OpenAPI document: what the API mounts (method, path, whether a
// bearer token is needed, the permission) and what a new workspace's roles hold by default.

export type OperationId = keyof operations;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface OperationInfo {
  operationId: OperationId;
  method: Uppercase<(typeof METHODS)[number]>;
  /** The document's path template, e.g. /api/v1/ledger/{legalEntityId}/entries */
  path: string;
  /** The same path as an Express route, e.g. /api/v1/ledger/:legalEntityId/entries */
  expressPath: string;
  permission: string | null;
  defaultRoles: RoleCode[];
  requiresBearer: boolean;
  /** A provider callback: served only on the callback host with the shared token in X-Auth. */
  requiresCallbackToken: boolean;
  /** Matches a concrete request path exactly: same letter case, no trailing slash. */
  matcher: RegExp;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  [key: string]: unknown;
}

export function loadOpenApiDocument(file = path.join(__dirname, '..', 'api', 'openapi.yaml')): OpenApiDocument {
  // The YAML lives in the source tree; the compiled tree (dist/contracts) reads it from there too.
  const candidates = [file, path.join(__dirname, '..', '..', 'api', 'openapi.yaml')];
  const found = candidates.find((f) => existsSync(f));
  if (!found) throw new Error('api/openapi.yaml not found');
  return YAML.parse(readFileSync(found, 'utf8')) as OpenApiDocument;
}

const PARAMETER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

function templateToRegExp(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

/** Every operation of the document; refuses a document whose permissions or roles are inconsistent. */
export function indexOperations(doc: OpenApiDocument): OperationInfo[] {
  const operations: OperationInfo[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const security: Array<Record<string, unknown>> = op.security ?? [];
      const requiresBearer = security.some((s) => 'bearerAuth' in s);
      const requiresCallbackToken = security.some((s) => 'callbackToken' in s);
      // Deny by default: a scheme the service does not enforce must not look like an open operation.
      const unknown = security.flatMap((s) => Object.keys(s)).find((name) => name !== 'bearerAuth' && name !== 'callbackToken');
      if (unknown) throw new Error(`${op.operationId}: security scheme ${unknown} is not enforced by the service`);
      if (requiresBearer && requiresCallbackToken) throw new Error(`${op.operationId}: a bearer operation cannot also be a callback`);
      const permission: string | null = op['x-permission'] ?? null;
      const defaultRoles: string[] = op['x-default-roles'] ?? [];
      if (requiresBearer && permission !== op.operationId) {
        throw new Error(`${op.operationId}: x-permission must equal the operation id`);
      }
      if (requiresBearer && !defaultRoles.includes('ADMIN')) {
        throw new Error(`${op.operationId}: ADMIN holds every permission`);
      }
      for (const role of defaultRoles) {
        if (!isRoleCode(role)) throw new Error(`${op.operationId}: unknown role ${role}`);
      }
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase() as OperationInfo['method'],
        path: template,
        expressPath: template.replace(PARAMETER, ':$1'),
        permission: requiresBearer ? permission : null,
        defaultRoles: defaultRoles as RoleCode[],
        requiresBearer,
        requiresCallbackToken,
        matcher: templateToRegExp(template),
      });
    }
  }
  const ids = operations.map((o) => o.operationId);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw new Error(`operation id ${repeated} is used twice`);
  return operations;
}

export interface OperationIndex {
  operations: OperationInfo[];
  find(method: string, path: string): OperationInfo | undefined;
  /** The methods the document serves at this exact path (empty: no such path). */
  methodsAt(path: string): string[];
  /** permission id → the roles that hold it by default */
  defaultPermissions(): Map<string, RoleCode[]>;
  /** The concrete path of an operation, its template filled from `params` (each value URL-encoded). */
  pathOf(operationId: OperationId, params: Record<string, string>): string;
}

export function createOperationIndex(doc: OpenApiDocument): OperationIndex {
  const operations = indexOperations(doc);
  return {
    operations,
    find(method, requestPath) {
      const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
      return operations.find((op) => op.method === m && op.matcher.test(requestPath));
    },
    methodsAt(requestPath) {
      return operations.filter((op) => op.matcher.test(requestPath)).map((op) => op.method);
    },
    defaultPermissions() {
      const map = new Map<string, RoleCode[]>();
      for (const op of operations) if (op.permission) map.set(op.permission, op.defaultRoles);
      return map;
    },
    pathOf(operationId, params) {
      const op = operations.find((o) => o.operationId === operationId);
      if (!op) throw new Error(`no operation ${operationId}`);
      return op.path.replace(PARAMETER, (_m, name: string) => {
        const value = params[name];
        if (value === undefined) throw new Error(`${operationId}: no value for {${name}}`);
        return encodeURIComponent(value);
      });
    },
  };
}
