import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import { FANOUT_PARALLELISM, type SendNotificationActivities, type SendNotificationInput, type SendNotificationResult } from '../../contracts/notifications';

const steps = proxyActivities<SendNotificationActivities>(activityProfiles.pushMessageStep);
const { deliverPush } = proxyActivities<SendNotificationActivities>(activityProfiles.pushDelivery);

function reasonOf(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : 'the push could not be sent';
}

/**
 * The fan-out of one message: one activity per device, FANOUT_PARALLELISM at a time, each idempotent per
 * (message, device), so a worker killed mid fan-out and restarted sends each device one message. Started by
 * sendNotification (workflow id `send-notification-<tenantId>-<requestId>`): the same request can never fan
 * out twice.
 */
export async function sendNotificationWorkflow(input: SendNotificationInput): Promise<SendNotificationResult> {
  const { tenantId, messageId } = input;
  await steps.startPushMessage({ tenantId, messageId });
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < input.deviceIds.length) {
      const deviceId = input.deviceIds[next++]!;
      try {
        await deliverPush({ tenantId, messageId, deviceId });
      } catch (err) {
        await steps.failPushDelivery({ tenantId, messageId, deviceId, reason: reasonOf(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FANOUT_PARALLELISM, input.deviceIds.length) }, lane));
  return steps.completePushMessage({ tenantId, messageId });
}
