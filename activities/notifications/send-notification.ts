import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../../runtime/logger';
import { PushRejected, PushUnavailable, settledState, type DeliveryState, type PushSender } from '../../core/notifications/push';
import { FailureType, PUSH_UNAVAILABLE } from '../../contracts/failures';
import type { SendNotificationActivities } from '../../contracts/notifications';
import { withTenant } from '../../db/connection';
import { completeMessage, deleteDevice, deliveryTarget, markSending, messageStatus, settleDelivery } from '../../db/repositories/notifications/messages';

export interface SendNotificationDeps {
  db: Sequelize;
  logger: Logger;
  pushSender: PushSender;
}

/** The activities of sendNotificationWorkflow (started by sendNotification): the push fan-out of one message. */
export function createSendNotificationActivities({ db, logger, pushSender }: SendNotificationDeps): SendNotificationActivities {
  const log = logger.child({ component: 'send-notification' });

  async function startPushMessage({ tenantId, messageId }: { tenantId: string; messageId: string }): Promise<void> {
    await withTenant(db, tenantId, (tx) => markSending(tx, messageId));
  }

  async function deliverPush({ tenantId, messageId, deviceId }: { tenantId: string; messageId: string; deviceId: string }): Promise<DeliveryState> {
    // A settled delivery is answered as it is, so a retried activity never sends again. The send is not
    // made inside a transaction (no connection is held while the provider answers); the development
    // adapter records a delivery key once, and FCM may see a second send only when a worker dies between
    // its send and the commit below.
    const target = await withTenant(db, tenantId, (tx) => deliveryTarget(tx, messageId, deviceId));
    if (!target) throw ApplicationFailure.nonRetryable(`no delivery of message ${messageId} to device ${deviceId}`, FailureType.PushRejected);
    if (target.state !== 'PENDING') return target.state;
    const settle = (state: Exclude<DeliveryState, 'PENDING'>, detail: { providerMessageId?: string; error?: string }) =>
      withTenant(db, tenantId, async (tx) => {
        await settleDelivery(tx, { messageId, deviceId, state, ...detail });
        if (state === 'INVALID_TOKEN') await deleteDevice(tx, deviceId);
      });
    if (target.token === null) {
      await settle('FAILED', { error: 'the device was removed or moved to another member' });
      return 'FAILED';
    }
    let result;
    try {
      result = await pushSender.send({
        token: target.token,
        title: target.title,
        body: target.body,
        clickPath: target.clickPath,
        messageId,
        deliveryKey: `${messageId}:${deviceId}`,
      });
    } catch (err) {
      if (err instanceof PushRejected) throw ApplicationFailure.nonRetryable(err.message, FailureType.PushRejected);
      if (err instanceof PushUnavailable) throw ApplicationFailure.retryable(err.message, PUSH_UNAVAILABLE);
      throw err;
    }
    if (result.outcome === 'UNREGISTERED') {
      await settle('INVALID_TOKEN', { error: 'the provider reports the token unregistered' });
      log.info('push device removed: token unregistered', { tenantId, messageId, deviceId });
      return 'INVALID_TOKEN';
    }
    await settle('SENT', { providerMessageId: result.providerMessageId });
    return 'SENT';
  }

  async function failPushDelivery(input: { tenantId: string; messageId: string; deviceId: string; reason: string }): Promise<void> {
    await withTenant(db, input.tenantId, (tx) => settleDelivery(tx, { messageId: input.messageId, deviceId: input.deviceId, state: 'FAILED', error: input.reason }));
    log.warn('push delivery failed', { tenantId: input.tenantId, messageId: input.messageId, deviceId: input.deviceId, reason: input.reason });
  }

  async function completePushMessage({ tenantId, messageId }: { tenantId: string; messageId: string }) {
    return withTenant(db, tenantId, async (tx) => {
      const current = await messageStatus(tx, messageId);
      const counts = current?.counts ?? {};
      const status = settledState(counts);
      await completeMessage(tx, messageId, status);
      return { status, counts };
    });
  }

  return { startPushMessage, deliverPush, failPushDelivery, completePushMessage };
}
