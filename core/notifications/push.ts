// The push port. Adapters (adapters/push) implement it: Firebase Cloud Messaging HTTP v1 in production, a
// development adapter that records deliveries otherwise. Nothing here knows how a push leaves the process.
import { createHash } from 'node:crypto';

export interface PushNotification {
  token: string;
  title: string;
  body: string;
  clickPath: string | null;
  messageId: string;
  /** `<messageId>:<deviceId>`: one delivery; the development adapter records each at most once. */
  deliveryKey: string;
}

export type PushResult =
  | { outcome: 'SENT'; providerMessageId: string }
  /** The provider says the token is no longer registered: the device is removed. */
  | { outcome: 'UNREGISTERED' };

/** The provider refused this push for good (a malformed request, a sender mismatch): no retry helps. */
export class PushRejected extends Error {}

/** The provider could not take the push now (network, 429, 5xx): retried with backoff. */
export class PushUnavailable extends Error {}

export interface PushSender {
  readonly kind: 'fcm' | 'development';
  send(notification: PushNotification): Promise<PushResult>;
}

export type DevicePlatform = 'ANDROID' | 'IOS' | 'WEB' | 'UNKNOWN';

/**
 * The platform of the app that registers a device, from its User-Agent (an FCM token does not say):
 * Android, iOS (iPhone, iPad, iOS, CFNetwork/Darwin clients), a browser (Mozilla/…), else UNKNOWN.
 */
export function platformOf(userAgent: string | null | undefined): DevicePlatform {
  const ua = userAgent ?? '';
  if (/android/i.test(ua)) return 'ANDROID';
  if (/iphone|ipad|ipod|\bios\b|cfnetwork|darwin/i.test(ua)) return 'IOS';
  if (/^mozilla\//i.test(ua)) return 'WEB';
  return 'UNKNOWN';
}

/** Device tokens are looked up by their SHA-256 (a 4 KB token is too long for a B-tree key). */
export function deviceTokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export type DeliveryState = 'PENDING' | 'SENT' | 'FAILED' | 'INVALID_TOKEN';
export type MessageState = 'QUEUED' | 'SENDING' | 'DELIVERED' | 'PARTIAL' | 'FAILED';

/** DELIVERED when every device got it, PARTIAL when some did, FAILED when none did (or there was none). */
export function settledState(counts: Partial<Record<DeliveryState, number>>): MessageState {
  const sent = counts.SENT ?? 0;
  const others = (counts.FAILED ?? 0) + (counts.INVALID_TOKEN ?? 0) + (counts.PENDING ?? 0);
  if (sent > 0 && others === 0) return 'DELIVERED';
  if (sent > 0) return 'PARTIAL';
  return 'FAILED';
}
