import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { RoleCode } from '../db/models/workspace';

// The OpenAPI document is the single source of truth: routes are validated against it, and the
// permission catalogue (permission id → default roles) is derived from its x- extensions.

export const ROLE_CODES: RoleCode[] = ['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  permission: string | null;
  defaultRoles: RoleCode[];
  requiresBearer: boolean;
  matcher: RegExp;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  [key: string]: unknown;
}

export function loadOpenApiDocument(file = path.join(__dirname, 'openapi.yaml')): OpenApiDocument {
  // The YAML sits beside this file in the source tree; the compiled tree reads it from the source.
  const candidates = [file, path.join(__dirname, '..', '..', 'api', 'openapi.yaml')];
  const found = candidates.find((f) => existsSync(f));
  if (!found) throw new Error('api/openapi.yaml not found');
  return YAML.parse(readFileSync(found, 'utf8')) as OpenApiDocument;
}

function templateToRegExp(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}/?$`);
}

export function indexOperations(doc: OpenApiDocument): OperationInfo[] {
  const operations: OperationInfo[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const security: Array<Record<string, unknown>> = op.security ?? [];
      const requiresBearer = security.some((s) => 'bearerAuth' in s);
      const permission: string | null = op['x-permission'] ?? null;
      const defaultRoles: RoleCode[] = op['x-default-roles'] ?? [];
      if (requiresBearer && permission !== op.operationId) {
        throw new Error(`${op.operationId}: x-permission must equal the operation id`);
      }
      if (requiresBearer && !defaultRoles.includes('ADMIN')) {
        throw new Error(`${op.operationId}: ADMIN holds every permission`);
      }
      for (const role of defaultRoles) {
        if (!ROLE_CODES.includes(role)) throw new Error(`${op.operationId}: unknown role ${role}`);
      }
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path: template,
        permission: requiresBearer ? permission : null,
        defaultRoles,
        requiresBearer,
        matcher: templateToRegExp(template),
      });
    }
  }
  return operations;
}

export interface OperationIndex {
  operations: OperationInfo[];
  find(method: string, path: string): OperationInfo | undefined;
  /** permission id → the roles that hold it by default */
  defaultPermissions(): Map<string, RoleCode[]>;
}

export function createOperationIndex(doc: OpenApiDocument): OperationIndex {
  const operations = indexOperations(doc);
  return {
    operations,
    find(method, requestPath) {
      const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
      return operations.find((op) => op.method === m && op.matcher.test(requestPath));
    },
    defaultPermissions() {
      const map = new Map<string, RoleCode[]>();
      for (const op of operations) if (op.permission) map.set(op.permission, op.defaultRoles);
      return map;
    },
  };
}
