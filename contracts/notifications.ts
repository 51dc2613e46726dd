// The notifications' contracts: sendNotificationWorkflow (workflow send-notification-<tenantId>-<requestId>,
// started by sendNotification), the push fan-out of one message, and its activities. Inputs carry ids only:
// device tokens, titles and bodies are read by the activities, never kept in workflow history.
import type { DeliveryState, MessageState } from '../core/notifications/push';

export const SEND_NOTIFICATION_WORKFLOW = 'sendNotificationWorkflow';

/** How many devices are sent to at once: enough to be quick, bounded so one message cannot flood the worker. */
export const FANOUT_PARALLELISM = 20;

export interface SendNotificationInput {
  tenantId: string;
  messageId: string;
  deviceIds: string[];
}

export interface SendNotificationResult {
  status: MessageState;
  counts: Partial<Record<DeliveryState, number>>;
}

export type SendNotificationWorkflow = (input: SendNotificationInput) => Promise<SendNotificationResult>;

export interface DeliveryInput {
  tenantId: string;
  messageId: string;
  deviceId: string;
}

export interface SendNotificationActivities {
  /** QUEUED → SENDING. */
  startPushMessage(input: { tenantId: string; messageId: string }): Promise<void>;
  /**
   * Sends one device its message, once: a delivery already settled is answered as it is. An unregistered
   * token settles INVALID_TOKEN and removes the device; an outage throws (retried with backoff).
   */
  deliverPush(input: DeliveryInput): Promise<DeliveryState>;
  /** A delivery whose retries are exhausted or that the provider refused settles FAILED with the reason. */
  failPushDelivery(input: DeliveryInput & { reason: string }): Promise<void>;
  /** Settles the message from its deliveries: DELIVERED, PARTIAL or FAILED, with the counts. */
  completePushMessage(input: { tenantId: string; messageId: string }): Promise<SendNotificationResult>;
}
