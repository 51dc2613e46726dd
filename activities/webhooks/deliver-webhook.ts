import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import type { Config } from '../../runtime/config';
import type { FactorSecrets } from '../../core/identity/factor-secrets';
import type { Logger } from '../../runtime/logger';
import type { Mailer } from '../../core/mail/mail';
import { attemptError, retryDelayMs, signedHeaders, webhookBody, type WebhookResponse, type WebhookSender } from '../../core/webhooks/webhooks';
import type { DeliverWebhookActivities, DeliverWebhookInput, WebhookAttemptInput, WebhookAttemptOutcome } from '../../contracts/webhooks';
import { withTenant } from '../../db/connection';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { listMembers } from '../../db/repositories/organisation/users';
import { tenantSlug } from '../../db/repositories/organisation/workspaces';
import { disabledEndpoint, failDelivery, openAttempt, recordAttempt, releaseSlot, settleDeliveryFailed } from '../../db/repositories/webhooks/delivery-attempts';
import { sendRecordedMail } from '../mail/send-mail';

export interface DeliverWebhookDeps {
  db: Sequelize;
  mailer: Mailer;
  logger: Logger;
  factorSecrets: FactorSecrets;
  webhookSender: WebhookSender;
  webhooks: Pick<Config['webhooks'], 'endpointConcurrency' | 'attemptTimeoutMs' | 'retryHours' | 'retryIntervalsMs' | 'disableAfterDays'>;
  publicUrl: string;
  baseDomain: string;
}

/** A slot's lease outlasts its attempt by this much (the bookkeeping around the call); then it frees itself. */
const LEASE_MARGIN_MS = 15_000;

/** What a mail or a log line may say of a URL: its origin and path, never its query (it may hold a receiver's token). */
function shownUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * The activities of deliverWebhookWorkflow (webhook-<endpointId>-<eventId>, started through the start
 * outbox by every change that produces an event, sendWebhookTestEvent and retryWebhookDelivery).
 */
export function createDeliverWebhookActivities(deps: DeliverWebhookDeps): DeliverWebhookActivities {
  const { db, factorSecrets, webhookSender, webhooks } = deps;
  const log = deps.logger.child({ component: 'deliver-webhook' });

  /** The call, heartbeating while the receiver takes its time, so a dead worker is noticed in seconds. */
  async function sendHeartbeating(request: Parameters<WebhookSender['send']>[0]): Promise<WebhookResponse> {
    const beat = setInterval(() => Context.current().heartbeat(), 1000);
    try {
      return await webhookSender.send(request);
    } finally {
      clearInterval(beat);
    }
  }

  async function attemptWebhookDelivery(input: WebhookAttemptInput): Promise<WebhookAttemptOutcome> {
    const scope = { tenantId: input.tenantId };
    const ids = { endpointId: input.endpointId, deliveryId: input.deliveryId };
    const { target, lease } = await openAttempt(db, scope, ids, { slots: webhooks.endpointConcurrency, leaseMs: webhooks.attemptTimeoutMs + LEASE_MARGIN_MS });
    if (!target) return { outcome: 'SKIPPED', reason: 'no such delivery to this endpoint' };
    if (target.state !== 'PENDING') return { outcome: 'SKIPPED', reason: `the delivery is ${target.state} already` };
    if (!target.live) {
      const reason = 'the endpoint was deleted or disabled before the delivery went out';
      await withTenant(db, scope.tenantId, (tx) => settleDeliveryFailed(tx, scope, ids, reason));
      return { outcome: 'SKIPPED', reason };
    }
    if (!lease) return { outcome: 'BUSY' };

    const startedAt = new Date();
    let response: WebhookResponse;
    try {
      // The secrets are opened for this attempt only; they never leave this function.
      const secrets = [factorSecrets.decrypt('webhook-secret', input.endpointId, target.secretSealed)];
      if (target.previousSecretSealed) secrets.push(factorSecrets.decrypt('webhook-secret', input.endpointId, target.previousSecretSealed));
      const body = webhookBody({ type: target.eventType, occurredAt: target.occurredAt, tenantId: input.tenantId, data: target.payload });
      const headers = signedHeaders({ eventId: target.eventId, timestamp: startedAt, body, secrets });
      response = await sendHeartbeating({ url: target.url, headers, body });
    } catch (err) {
      await releaseSlot(db, scope, input.endpointId, lease).catch(() => undefined);
      throw err;
    }

    const delivered = response.errorClass === null;
    const retryInMs = delivered
      ? null
      : retryDelayMs(input.attempt, Date.now() - Date.parse(input.firstAttemptAt), { intervalsMs: webhooks.retryIntervalsMs, windowMs: webhooks.retryHours * 3_600_000 });
    const attemptNumber = await recordAttempt(db, scope, ids, lease, {
      startedAt,
      durationMs: response.durationMs,
      statusCode: response.statusCode,
      errorClass: response.errorClass,
      excerpt: response.excerpt,
      lastError: delivered ? null : attemptError(response, webhooks.attemptTimeoutMs),
      nextAttemptAt: retryInMs === null ? null : new Date(Date.now() + retryInMs),
    });
    if (delivered) return { outcome: 'DELIVERED', attemptNumber, statusCode: response.statusCode!, durationMs: response.durationMs };
    log.info('webhook attempt failed', {
      tenantId: input.tenantId,
      deliveryId: input.deliveryId,
      attempt: attemptNumber,
      errorClass: response.errorClass,
      statusCode: response.statusCode,
      retryInMs,
    });
    return { outcome: 'FAILED', attemptNumber, statusCode: response.statusCode, durationMs: response.durationMs, errorClass: response.errorClass!, retryInMs };
  }

  async function failWebhookDelivery(input: DeliverWebhookInput & { reason: string }): Promise<{ endpointDisabled: boolean }> {
    const scope = { tenantId: input.tenantId };
    const ids = { endpointId: input.endpointId, deliveryId: input.deliveryId };
    const disabledReason = `Disabled by the service: its deliveries have failed for ${webhooks.disableAfterDays} days. The last one: ${input.reason}`;
    const result = await withTenant(db, scope.tenantId, async (tx) => {
      const settled = await failDelivery(tx, scope, ids, { afterDays: webhooks.disableAfterDays, reason: disabledReason });
      if (settled.endpointDisabled) {
        await recordAuditEvent(tx, scope, {
          action: 'webhooks.endpoint.disabled',
          actorMembershipId: null,
          actorDisplayName: 'Webhook delivery',
          systemActor: true,
          correlationId: input.deliveryId,
          subjectType: 'WEBHOOK_ENDPOINT',
          subjectId: input.endpointId,
          ipAddress: null,
          details: disabledReason,
        });
      }
      return settled;
    });
    log.warn(result.endpointDisabled ? 'webhook delivery failed; its endpoint is disabled' : 'webhook delivery failed', {
      tenantId: input.tenantId,
      endpointId: input.endpointId,
      deliveryId: input.deliveryId,
      reason: input.reason,
    });
    return result;
  }

  async function mailWebhookEndpointDisabled(input: DeliverWebhookInput): Promise<void> {
    const scope = { tenantId: input.tenantId };
    const found = await withTenant(db, scope.tenantId, async (tx) => {
      const endpoint = await disabledEndpoint(tx, scope, input.endpointId);
      if (!endpoint) return null;
      const admins = await listMembers(tx, scope, { q: '', status: 'ACTIVE', role: 'ADMIN', page: 0, size: 100 });
      return { endpoint, admins: admins.items, slug: await tenantSlug(tx, scope) };
    });
    // Enabled again (or deleted) before the mail went out: nothing to tell.
    if (!found) return;
    const { endpoint, admins, slug } = found;
    const workspace = new URL(deps.publicUrl);
    workspace.hostname = `${slug}.${deps.baseDomain}`;
    const text = [
      `The webhook endpoint ${shownUrl(endpoint.url)}${endpoint.description ? ` (${endpoint.description})` : ''} of the workspace ${slug} has been disabled.`,
      '',
      endpoint.disabledReason,
      endpoint.failingSince ? `Failing since ${endpoint.failingSince.toISOString()}.` : '',
      '',
      'Events are no longer sent to it. Once the receiver works again, enable the endpoint',
      `(PUT ${workspace.origin}/api/v1/webhooks/endpoints/${input.endpointId} with "enabled": true) and retry the deliveries`,
      'it missed from its delivery log.',
    ].join('\n');
    for (const admin of admins) {
      try {
        await sendRecordedMail(
          deps,
          // One mail per ADMIN and disabling (the version the disabling wrote): a retried activity reuses the row.
          { key: `webhook-disabled:${input.endpointId}:${endpoint.version}:${admin.id}`, purpose: 'WEBHOOK_DISABLED' },
          { to: admin.email, subject: 'A webhook endpoint was disabled', text },
        );
      } catch (err) {
        // The provider refused this address for good (recorded FAILED with its mail): the other ADMINs are still told.
        if (!(err instanceof ApplicationFailure && err.nonRetryable)) throw err;
        log.warn('webhook disabled mail refused', { tenantId: input.tenantId, endpointId: input.endpointId, membershipId: admin.id });
      }
    }
  }

  return { attemptWebhookDelivery, failWebhookDelivery, mailWebhookEndpointDisabled };
}
