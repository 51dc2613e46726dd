import { createHash, randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { AppError } from '../../core/shared/problems';
import { deviceTokenHash, platformOf, type DevicePlatform } from '../../core/notifications/push';
import { SEND_NOTIFICATION_WORKFLOW, type SendNotificationWorkflow } from '../../contracts/notifications';
import { sendNotificationWorkflowId } from '../../contracts/workflow-ids';
import { withTenant } from '../../db/connection';
import {
  claimDevice,
  devicesOfMembership,
  insertMessage,
  membershipState,
  messageByRequest,
  messageStatus,
  removeDevice as removeDeviceRow,
} from '../../db/repositories/notifications/messages';
import type { Principal, RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import type { WorkflowClient } from '../workflow-client';
import { recordCallerEvent } from '../../services/audit/caller-events';

/** The content a requestId stands for: the same requestId with other content is a different request. */
function fingerprintOf(body: Schemas['SendRequest']): Buffer {
  return createHash('sha256')
    .update(JSON.stringify([body.recipientMembershipId, body.title, body.body, body.clickPath ?? null]))
    .digest();
}

/** Devices and push notifications. */
export function createNotifications(deps: { db: Sequelize; workflows: WorkflowClient }) {
  const { db, workflows } = deps;

  async function registerDevice(principal: Principal, body: Schemas['DeviceRequest'], ctx: RequestContext): Promise<Schemas['DeviceResponse']> {
    const platform: DevicePlatform = platformOf(ctx.userAgent);
    return withTenant(db, principal.tenantId, async (tx) => {
      const known = await claimDevice(tx, {
        tenantId: principal.tenantId,
        membershipId: principal.membershipId,
        token: body.token,
        tokenHash: deviceTokenHash(body.token),
        platform,
      });
      await recordCallerEvent(tx, principal, ctx, { action: 'notifications.device.registered', subjectType: 'PUSH_DEVICE', subjectId: known, details: platform });
      return { id: known, platform };
    });
  }

  async function removeDevice(principal: Principal, deviceId: string, ctx: RequestContext): Promise<void> {
    await withTenant(db, principal.tenantId, async (tx) => {
      if (!(await removeDeviceRow(tx, principal.membershipId, deviceId))) throw new AppError('not-found', 'You have no such device');
      await recordCallerEvent(tx, principal, ctx, { action: 'notifications.device.removed', subjectType: 'PUSH_DEVICE', subjectId: deviceId });
    });
  }

  /**
   * Records the message with one PENDING delivery per device of the recipient and the fan-out's start, in
   * one commit; then starts it. A repeated requestId (also ten at once: the unique key makes the others
   * wait for the first commit) answers the first message and starts nothing new.
   */
  async function sendNotification(principal: Principal, body: Schemas['SendRequest'], ctx: RequestContext): Promise<Schemas['Enqueued']> {
    const fingerprint = fingerprintOf(body);
    const workflowId = sendNotificationWorkflowId(principal.tenantId, body.requestId);
    const outcome = await withTenant(db, principal.tenantId, async (tx) => {
      const state = await membershipState(tx, body.recipientMembershipId);
      if (state === null) throw new AppError('not-found', 'The recipient is not a member of this workspace');
      if (state !== 'ACTIVE') throw new AppError('recipient-not-active', 'The recipient is suspended');
      const id = randomUUID();
      const deviceIds = await devicesOfMembership(tx, body.recipientMembershipId);
      const inserted = await insertMessage(tx, {
        tenantId: principal.tenantId,
        id,
        requestId: body.requestId,
        fingerprint,
        senderMembershipId: principal.membershipId,
        recipientMembershipId: body.recipientMembershipId,
        title: body.title,
        body: body.body,
        clickPath: body.clickPath ?? null,
        deviceIds,
      });
      if (!inserted) {
        const earlier = (await messageByRequest(tx, body.requestId))!;
        if (!earlier.fingerprint.equals(fingerprint)) throw new AppError('request-id-reused', 'This requestId was used for another notification');
        return { id: earlier.id, devices: earlier.deviceCount, startId: null };
      }
      const startId = await workflows.enqueue<SendNotificationWorkflow>(tx, SEND_NOTIFICATION_WORKFLOW, {
        workflowId,
        args: [{ tenantId: principal.tenantId, messageId: id, deviceIds }],
        tenantId: principal.tenantId,
        idReusePolicy: 'REJECT_DUPLICATE',
      });
      await recordCallerEvent(tx, principal, ctx, {
        action: 'notifications.message.sent',
        subjectType: 'PUSH_MESSAGE',
        subjectId: id,
        details: `to member ${body.recipientMembershipId}, ${deviceIds.length} device(s)`,
      });
      return { id, devices: deviceIds.length, startId };
    });
    // A repeat re-drives a start its first request could not make (Temporal was unreachable then).
    await workflows.dispatch(outcome.startId ? { id: outcome.startId } : { workflowId });
    return { id: outcome.id, devices: outcome.devices };
  }

  async function getNotificationStatus(principal: Principal, messageId: string): Promise<Schemas['MessageStatus']> {
    const status = await withTenant(db, principal.tenantId, (tx) => messageStatus(tx, messageId));
    if (!status) throw new AppError('not-found', 'No such message in this workspace');
    return { id: status.id, status: status.status, counts: status.counts as Record<string, number> };
  }

  return { registerDevice, removeDevice, sendNotification, getNotificationStatus };
}
