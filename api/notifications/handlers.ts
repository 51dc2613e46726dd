import type { Sequelize } from 'sequelize';
import { AppError } from '../../core/shared/problems';
import { pushOutboxFor } from '../../db/repositories/notifications/outbox';
import { memberOperation, publicOperation, type HandlersOf } from '../http/operation-handler';
import type { createNotifications } from './notifications';

export type NotificationOperation = 'registerDevice' | 'removeDevice' | 'sendNotification' | 'getNotificationStatus' | 'listDevelopmentPush';

export function notificationHandlers(deps: {
  db: Sequelize;
  notifications: ReturnType<typeof createNotifications>;
  /** Whether the development push adapter is the one sending (GET /dev/push exists only then). */
  developmentPush: boolean;
}): HandlersOf<NotificationOperation> {
  const { notifications } = deps;
  return {
    registerDevice: memberOperation(async ({ principal, body, ctx }) => ({ status: 201, body: await notifications.registerDevice(principal, body, ctx) })),
    removeDevice: memberOperation(async ({ principal, params, ctx }) => {
      await notifications.removeDevice(principal, params.deviceId, ctx);
      return { status: 204 };
    }),
    sendNotification: memberOperation(async ({ principal, body, ctx }) => ({ status: 202, body: await notifications.sendNotification(principal, body, ctx) })),
    getNotificationStatus: memberOperation(async ({ principal, params }) => ({ status: 200, body: await notifications.getNotificationStatus(principal, params.messageId) })),
    /** The development push outbox: exists only while the development adapter is active, on the central host. */
    listDevelopmentPush: publicOperation(async ({ query, ctx }) => {
      if (!deps.developmentPush || ctx.host.kind !== 'central') throw new AppError('not-found', 'No resource at GET /dev/push');
      const pushes = await pushOutboxFor(deps.db, query.token, 50);
      return { status: 200, body: pushes.map((p) => ({ ...p, sentAt: p.sentAt.toISOString() })) };
    }),
  };
}
