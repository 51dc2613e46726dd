import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { Sequelize } from 'sequelize';
import { AppError } from '../../core/shared/problems';
import type { FactorSecrets } from '../../core/identity/factor-secrets';
import { addressRefusal } from '../../adapters/webhooks/http-sender';
import { withTenant } from '../../db/connection';
import {
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  liveEndpointCountLocked,
  rotateEndpointSecret,
  softDeleteEndpoint,
  updateEndpoint,
  type EndpointRow,
} from '../../db/repositories/webhooks/endpoints';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf, type PageQuery } from '../http/pages';
import { recordCallerEvent } from '../../services/audit/caller-events';

type WebhookEndpoint = Schemas['WebhookEndpoint'];

/** Live endpoints a workspace may have (deleted ones do not count). */
const WEBHOOK_ENDPOINT_LIMIT = 20;

const NO_ENDPOINT = 'No webhook endpoint with this id in your workspace';

function viewOf(row: EndpointRow, now: Date): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince?.toISOString() ?? null,
    previousSecretExpiresAt: row.previousSecretUntil && row.previousSecretUntil > now ? row.previousSecretUntil.toISOString() : null,
    lockVersion: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A Standard Webhooks secret: whsec_ and 32 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The rules the document cannot state: an absolute http(s) URL without credentials or fragment, https
 * unless plain http is allowed, and no literal address that the sender would refuse (loopback, private,
 * link-local, …: the sender's own check). A host name is resolved and checked at every attempt instead,
 * not here: DNS can change.
 */
function checkUrl(raw: string, rules: { allowHttp: boolean; allowLoopback: boolean }): URL {
  const refuse = (message: string) => new AppError('validation', `url ${message}`, { errors: [{ path: '/body/url', message }] });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must be an https URL');
  if (url.protocol === 'http:' && !rules.allowHttp) throw refuse('must be an https URL (plain http is not allowed on this service)');
  if (url.username !== '' || url.password !== '') throw refuse('must not carry credentials (user:password@)');
  if (raw.includes('#')) throw refuse('must not have a fragment (#…)');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const refusal = isIP(host) ? addressRefusal(host, rules) : null;
  if (refusal) throw refuse(`must not name an address that cannot receive webhooks: ${refusal}`);
  return url;
}

/** What an audit event may say of a URL: its origin and path, never its query (it may hold a receiver's token). */
const auditedUrl = (url: URL) => `${url.origin}${url.pathname}`;

/** A workspace's webhook endpoints (ADMIN by default): create, list, read, change, delete, rotate the secret. */
export function createWebhookEndpoints(deps: { db: Sequelize; factorSecrets: FactorSecrets; urlRules: { allowHttp: boolean; allowLoopback: boolean } }) {
  const { db, factorSecrets } = deps;

  async function createWebhookEndpoint(principal: Principal, body: Schemas['WebhookEndpointCreate'], ctx: RequestContext): Promise<Schemas['WebhookEndpointWithSecret']> {
    const url = checkUrl(body.url, deps.urlRules);
    const scope = { tenantId: principal.tenantId };
    const id = randomUUID();
    const secret = newSecret();
    const secretSealed = factorSecrets.encrypt('webhook-secret', id, secret);
    const row = await withTenant(db, scope.tenantId, async (tx) => {
      if ((await liveEndpointCountLocked(tx, scope)) >= WEBHOOK_ENDPOINT_LIMIT) {
        throw new AppError('webhook-endpoint-limit', `A workspace has at most ${WEBHOOK_ENDPOINT_LIMIT} webhook endpoints; delete one first`, {
          limit: WEBHOOK_ENDPOINT_LIMIT,
        });
      }
      const created = await insertEndpoint(tx, scope, { id, url: body.url, description: body.description ?? null, eventTypes: body.eventTypes, secretSealed });
      await recordCallerEvent(tx, principal, ctx, {
        action: 'webhooks.endpoint.created',
        subjectType: 'WEBHOOK_ENDPOINT',
        subjectId: id,
        details: `${auditedUrl(url)}; ${body.eventTypes.join(', ')}`,
      });
      return created;
    });
    return { ...viewOf(row, new Date()), secret };
  }

  async function listWebhookEndpoints(principal: Principal, page: PageQuery): Promise<Schemas['WebhookEndpointPage']> {
    const scope = { tenantId: principal.tenantId };
    const { rows, total } = await withTenant(db, scope.tenantId, (tx) => listEndpoints(tx, scope, { limit: page.size, offset: page.page * page.size }));
    const now = new Date();
    return pageOf(rows.map((r) => viewOf(r, now)), page, total);
  }

  async function getWebhookEndpoint(principal: Principal, endpointId: string): Promise<WebhookEndpoint> {
    const scope = { tenantId: principal.tenantId };
    const row = await withTenant(db, scope.tenantId, (tx) => findEndpoint(tx, scope, endpointId));
    if (!row) throw new AppError('not-found', NO_ENDPOINT);
    return viewOf(row, new Date());
  }

  async function updateWebhookEndpoint(
    principal: Principal,
    endpointId: string,
    body: Schemas['WebhookEndpointUpdate'],
    ctx: RequestContext,
  ): Promise<WebhookEndpoint> {
    const url = checkUrl(body.url, deps.urlRules);
    const scope = { tenantId: principal.tenantId };
    const stale = () => new AppError('stale-version', 'The endpoint changed since you read it; reload and retry');
    const row = await withTenant(db, scope.tenantId, async (tx) => {
      const current = await findEndpoint(tx, scope, endpointId, { lock: true });
      if (!current) throw new AppError('not-found', NO_ENDPOINT);
      if (current.version !== body.lockVersion) throw stale();
      const description = body.description ?? null;
      const updated = await updateEndpoint(tx, scope, {
        id: endpointId,
        version: body.lockVersion,
        url: body.url,
        description,
        eventTypes: body.eventTypes,
        enabled: body.enabled,
        reenabled: !current.enabled && body.enabled,
      });
      if (!updated) throw stale();
      const changes: string[] = [];
      if (current.url !== body.url) changes.push(`url → ${auditedUrl(url)}`);
      if (current.eventTypes.join(',') !== body.eventTypes.join(',')) changes.push(`event types → ${body.eventTypes.join(', ')}`);
      if (current.description !== description) changes.push('description');
      if (current.enabled !== body.enabled) changes.push(body.enabled ? 'enabled' : 'disabled');
      await recordCallerEvent(tx, principal, ctx, {
        action: 'webhooks.endpoint.updated',
        subjectType: 'WEBHOOK_ENDPOINT',
        subjectId: endpointId,
        details: changes.join('; ') || 'no change',
      });
      return updated;
    });
    return viewOf(row, new Date());
  }

  async function deleteWebhookEndpoint(principal: Principal, endpointId: string, ctx: RequestContext): Promise<void> {
    const scope = { tenantId: principal.tenantId };
    await withTenant(db, scope.tenantId, async (tx) => {
      const current = await findEndpoint(tx, scope, endpointId, { lock: true });
      if (!current || !(await softDeleteEndpoint(tx, scope, endpointId))) throw new AppError('not-found', NO_ENDPOINT);
      await recordCallerEvent(tx, principal, ctx, {
        action: 'webhooks.endpoint.deleted',
        subjectType: 'WEBHOOK_ENDPOINT',
        subjectId: endpointId,
        details: auditedUrl(new URL(current.url)),
      });
    });
  }

  async function rotateWebhookEndpointSecret(principal: Principal, endpointId: string, ctx: RequestContext): Promise<Schemas['WebhookEndpointWithSecret']> {
    const scope = { tenantId: principal.tenantId };
    const secret = newSecret();
    const secretSealed = factorSecrets.encrypt('webhook-secret', endpointId, secret);
    const row = await withTenant(db, scope.tenantId, async (tx) => {
      const rotated = await rotateEndpointSecret(tx, scope, { id: endpointId, secretSealed });
      if (!rotated) throw new AppError('not-found', NO_ENDPOINT);
      await recordCallerEvent(tx, principal, ctx, {
        action: 'webhooks.endpoint.secret-rotated',
        subjectType: 'WEBHOOK_ENDPOINT',
        subjectId: endpointId,
        details: `the previous secret signs too until ${rotated.previousSecretUntil!.toISOString()}`,
      });
      return rotated;
    });
    return { ...viewOf(row, new Date()), secret };
  }

  return { createWebhookEndpoint, listWebhookEndpoints, getWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint, rotateWebhookEndpointSecret };
}
