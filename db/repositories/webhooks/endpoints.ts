import { col, fn, literal } from 'sequelize';
import { WebhookEndpoint } from '../../models';
import { selectRows, type Tx } from '../../connection';
import type { WebhookEventType } from '../../../contracts/webhooks';

// A workspace's webhook endpoints. Serves createWebhookEndpoint, listWebhookEndpoints, getWebhookEndpoint,
// updateWebhookEndpoint, deleteWebhookEndpoint, rotateWebhookEndpointSecret, sendWebhookTestEvent and
// retryWebhookDelivery. Single-table reads and version-checked updates go through the model; the count
// under the workspace's advisory lock is raw SQL. Rows come back without their sealed secrets: only
// rotation writes one and only the delivery reads one.

type Scope = { tenantId: string };

export interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  eventTypes: WebhookEventType[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  previousSecretUntil: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = ['id', 'url', 'description', 'eventTypes', 'enabled', 'disabledReason', 'failingSince', 'previousSecretUntil', 'version', 'createdAt', 'updatedAt'] as const;

function toRow(e: WebhookEndpoint): EndpointRow {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    failingSince: e.failingSince,
    previousSecretUntil: e.previousSecretUntil,
    version: e.version,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

const live = (scope: Scope, id: string) => ({ tenantId: scope.tenantId, id, deletedAt: null });

/**
 * How many live (not deleted) endpoints the workspace has, counted under a transaction-scoped advisory lock
 * per workspace, so concurrent creations cannot both pass the limit. Raw SQL: an advisory lock.
 */
export async function liveEndpointCountLocked(tx: Tx, scope: Scope): Promise<number> {
  await selectRows(tx, 'SELECT pg_advisory_xact_lock(hashtextextended(:tenantId, 8128))', scope);
  return WebhookEndpoint.count({ where: { tenantId: scope.tenantId, deletedAt: null }, transaction: tx });
}

export async function insertEndpoint(
  tx: Tx,
  scope: Scope,
  endpoint: { id: string; url: string; description: string | null; eventTypes: WebhookEventType[]; secretSealed: string },
): Promise<EndpointRow> {
  const created = await WebhookEndpoint.create({ tenantId: scope.tenantId, ...endpoint }, { transaction: tx });
  return toRow(created);
}

/** The workspace's live endpoints, oldest first. */
export async function listEndpoints(tx: Tx, scope: Scope, page: { limit: number; offset: number }): Promise<{ rows: EndpointRow[]; total: number }> {
  const { rows, count } = await WebhookEndpoint.findAndCountAll({
    attributes: [...COLUMNS],
    where: { tenantId: scope.tenantId, deletedAt: null },
    order: [['createdAt', 'ASC'], ['id', 'ASC']],
    limit: page.limit,
    offset: page.offset,
    transaction: tx,
  });
  return { rows: rows.map(toRow), total: count };
}

/** A live endpoint of the workspace, or null (deleted, or another workspace's id). */
export async function findEndpoint(tx: Tx, scope: Scope, id: string, options: { lock?: boolean } = {}): Promise<EndpointRow | null> {
  const row = await WebhookEndpoint.findOne({ attributes: [...COLUMNS], where: live(scope, id), transaction: tx, lock: options.lock ? tx.LOCK.UPDATE : undefined });
  return row ? toRow(row) : null;
}

/**
 * Replaces the endpoint's settings at `version` (null when it is stale or the endpoint is gone). Enabling a
 * disabled endpoint clears its failure state; a person's change leaves no service reason behind unless the
 * endpoint stays disabled.
 */
export async function updateEndpoint(
  tx: Tx,
  scope: Scope,
  change: { id: string; version: number; url: string; description: string | null; eventTypes: WebhookEventType[]; enabled: boolean; reenabled: boolean },
): Promise<EndpointRow | null> {
  const [, rows] = await WebhookEndpoint.update(
    {
      url: change.url,
      description: change.description,
      eventTypes: change.eventTypes,
      enabled: change.enabled,
      ...(change.enabled ? { disabledReason: null } : {}),
      ...(change.reenabled ? { failingSince: null } : {}),
      version: literal('version + 1') as unknown as number,
      updatedAt: fn('now') as unknown as Date,
    },
    { where: { ...live(scope, change.id), version: change.version }, returning: true, transaction: tx },
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/** Marks the endpoint deleted; false when it was not live. */
export async function softDeleteEndpoint(tx: Tx, scope: Scope, id: string): Promise<boolean> {
  const [deleted] = await WebhookEndpoint.update(
    { deletedAt: fn('now') as unknown as Date, updatedAt: fn('now') as unknown as Date, version: literal('version + 1') as unknown as number },
    { where: live(scope, id), transaction: tx },
  );
  return deleted > 0;
}

/**
 * Seals in a new secret; the current one becomes the previous one and signs beside it for 24 hours (an
 * older previous one is dropped). Null when the endpoint is not live.
 */
export async function rotateEndpointSecret(tx: Tx, scope: Scope, change: { id: string; secretSealed: string }): Promise<EndpointRow | null> {
  const [, rows] = await WebhookEndpoint.update(
    {
      secretSealed: change.secretSealed,
      // The right-hand side of an UPDATE reads the row as it was: the secret being replaced.
      previousSecretSealed: col('secret_sealed') as unknown as string,
      previousSecretUntil: literal("now() + interval '24 hours'") as unknown as Date,
      version: literal('version + 1') as unknown as number,
      updatedAt: fn('now') as unknown as Date,
    },
    { where: live(scope, change.id), returning: true, transaction: tx },
  );
  return rows[0] ? toRow(rows[0]) : null;
}
