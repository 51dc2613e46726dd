import type { Request } from 'express';

// Query values after OpenAPI validation: present values are valid, absent ones take the documented default.

export function pageAndSize(req: Request): { page: number; size: number } {
  return { page: Number(req.query.page ?? 0), size: Number(req.query.size ?? 50) };
}

export function optionalString(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return value === undefined ? undefined : String(value);
}

export function optionalBoolean(req: Request, name: string): boolean | undefined {
  const value = req.query[name];
  return value === undefined ? undefined : String(value) === 'true';
}
