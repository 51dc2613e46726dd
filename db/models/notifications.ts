import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { DeliveryState, DevicePlatform, MessageState } from '../../core/notifications/push';

/** A device token of one membership; claimed (and moved between workspaces) only by app_claim_push_device. */
export class PushDevice extends Model<InferAttributes<PushDevice>, InferCreationAttributes<PushDevice>> {
  declare id: string;
  declare tenantId: string;
  declare membershipId: string;
  declare token: string;
  declare tokenHash: Buffer;
  declare platform: DevicePlatform;
  declare createdAt: CreationOptional<Date>;
  declare lastSeenAt: CreationOptional<Date>;
}

/** One notification to one member; never deleted by the application role. */
export class PushMessage extends Model<InferAttributes<PushMessage>, InferCreationAttributes<PushMessage>> {
  declare tenantId: string;
  declare id: string;
  declare requestId: string;
  declare fingerprint: Buffer;
  declare senderMembershipId: string;
  declare recipientMembershipId: string;
  declare title: string;
  declare body: string;
  declare clickPath: string | null;
  declare status: CreationOptional<MessageState>;
  declare deviceCount: number;
  declare createdAt: CreationOptional<Date>;
  declare completedAt: CreationOptional<Date | null>;
}

/** A message's delivery to one device, PENDING until the fan-out settles it; never deleted by the application role. */
export class PushDelivery extends Model<InferAttributes<PushDelivery>, InferCreationAttributes<PushDelivery>> {
  declare tenantId: string;
  declare messageId: string;
  declare deviceId: string;
  declare state: CreationOptional<DeliveryState>;
  declare providerMessageId: CreationOptional<string | null>;
  declare error: CreationOptional<string | null>;
  declare updatedAt: CreationOptional<Date>;
}

/** The development push adapter's outbox; never written when FCM is configured. */
export class PushOutboxMessage extends Model<InferAttributes<PushOutboxMessage>, InferCreationAttributes<PushOutboxMessage>> {
  declare id: CreationOptional<string>;
  declare tokenHash: Buffer;
  declare deliveryKey: string;
  declare messageId: string;
  declare title: string;
  declare body: string;
  declare clickPath: string | null;
  declare sentAt: CreationOptional<Date>;
}

export function initNotificationModels(sequelize: Sequelize): void {
  PushDevice.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      tenantId: { type: DataTypes.UUID, allowNull: false },
      membershipId: { type: DataTypes.UUID, allowNull: false },
      token: { type: DataTypes.TEXT, allowNull: false },
      tokenHash: { type: DataTypes.BLOB, allowNull: false },
      platform: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE },
      lastSeenAt: { type: DataTypes.DATE },
    },
    { sequelize, tableName: 'push_devices' },
  );
  PushMessage.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      requestId: { type: DataTypes.UUID, allowNull: false },
      fingerprint: { type: DataTypes.BLOB, allowNull: false },
      senderMembershipId: { type: DataTypes.UUID, allowNull: false },
      recipientMembershipId: { type: DataTypes.UUID, allowNull: false },
      title: { type: DataTypes.TEXT, allowNull: false },
      body: { type: DataTypes.TEXT, allowNull: false },
      clickPath: DataTypes.TEXT,
      status: { type: DataTypes.TEXT },
      deviceCount: { type: DataTypes.INTEGER, allowNull: false },
      createdAt: { type: DataTypes.DATE },
      completedAt: DataTypes.DATE,
    },
    { sequelize, tableName: 'push_messages' },
  );
  PushDelivery.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      messageId: { type: DataTypes.UUID, primaryKey: true },
      deviceId: { type: DataTypes.UUID, primaryKey: true },
      state: { type: DataTypes.TEXT },
      providerMessageId: DataTypes.TEXT,
      error: DataTypes.TEXT,
      updatedAt: { type: DataTypes.DATE },
    },
    { sequelize, tableName: 'push_deliveries' },
  );
  PushOutboxMessage.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      tokenHash: { type: DataTypes.BLOB, allowNull: false },
      deliveryKey: { type: DataTypes.TEXT, allowNull: false },
      messageId: { type: DataTypes.UUID, allowNull: false },
      title: { type: DataTypes.TEXT, allowNull: false },
      body: { type: DataTypes.TEXT, allowNull: false },
      clickPath: DataTypes.TEXT,
      sentAt: { type: DataTypes.DATE },
    },
    { sequelize, tableName: 'push_outbox' },
  );
}
