// The push fan-out's contracts: the workflow push-<tenantId>-<requestId> and its activities. Inputs carry
// ids only: device tokens, titles and bodies are read by the activities, never kept in workflow history.
import type { DeliveryState, MessageState } from '../core/push';

export const PUSH_FANOUT_WORKFLOW = 'pushFanoutWorkflow';

export interface PushFanoutInput {
  tenantId: string;
  messageId: string;
  deviceIds: string[];
}

export interface PushFanoutResult {
  status: MessageState;
  counts: Partial<Record<DeliveryState, number>>;
}

export type PushFanoutWorkflow = (input: PushFanoutInput) => Promise<PushFanoutResult>;

export interface DeliveryInput {
  tenantId: string;
  messageId: string;
  deviceId: string;
}

export interface PushFanoutActivities {
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
  completePushMessage(input: { tenantId: string; messageId: string }): Promise<PushFanoutResult>;
}
