import { readFileSync } from 'node:fs';
import type { PushSender } from '../../core/notifications/push';
import { createDevelopmentPushSender, type PushOutboxStore } from './development';
import { createFcmPushSender, type FcmServiceAccount } from './fcm';

export { createDevelopmentPushSender, createFcmPushSender, type PushOutboxStore };

export interface PushConfig {
  /** A Firebase service-account key file; without one the development adapter sends. */
  fcmServiceAccountFile: string | null;
  fcmEndpoint: string;
  timeoutMs: number;
}

/** FCM when a service account is configured, otherwise the development adapter. */
export function createPushSender(config: PushConfig, outbox: PushOutboxStore): PushSender {
  if (!config.fcmServiceAccountFile) return createDevelopmentPushSender(outbox);
  const serviceAccount = JSON.parse(readFileSync(config.fcmServiceAccountFile, 'utf8')) as FcmServiceAccount;
  for (const field of ['project_id', 'private_key', 'client_email', 'token_uri'] as const) {
    if (typeof serviceAccount[field] !== 'string' || serviceAccount[field] === '') {
      throw new Error(`the FCM service-account file ${config.fcmServiceAccountFile} has no ${field}`);
    }
  }
  return createFcmPushSender({ serviceAccount, endpoint: config.fcmEndpoint, timeoutMs: config.timeoutMs });
}
