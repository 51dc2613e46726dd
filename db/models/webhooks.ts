import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { WebhookEventType } from '../../contracts/webhooks';

/** A receiver of a workspace's events; soft-deleted (deleted_at), never erased by the application role. */
export class WebhookEndpoint extends Model<InferAttributes<WebhookEndpoint>, InferCreationAttributes<WebhookEndpoint>> {
  declare tenantId: string;
  declare id: string;
  declare url: string;
  declare description: string | null;
  declare eventTypes: WebhookEventType[];
  declare enabled: CreationOptional<boolean>;
  declare disabledReason: CreationOptional<string | null>;
  /** Sealed with core/factor-secrets (purpose webhook-secret, owner = the endpoint id); never answered, logged or audited. */
  declare secretSealed: string;
  declare previousSecretSealed: CreationOptional<string | null>;
  declare previousSecretUntil: CreationOptional<Date | null>;
  declare failingSince: CreationOptional<Date | null>;
  declare version: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare deletedAt: CreationOptional<Date | null>;
}

/** One event to one endpoint: PENDING until its workflow settles it; kept after the endpoint is deleted. */
export class WebhookDelivery extends Model<InferAttributes<WebhookDelivery>, InferCreationAttributes<WebhookDelivery>> {
  declare tenantId: string;
  declare id: string;
  declare endpointId: string;
  declare eventId: string;
  declare state: CreationOptional<'PENDING' | 'DELIVERED' | 'FAILED'>;
  declare attemptCount: CreationOptional<number>;
  declare lastStatusCode: CreationOptional<number | null>;
  declare lastError: CreationOptional<string | null>;
  declare nextAttemptAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare settledAt: CreationOptional<Date | null>;
}

export function initWebhookModels(sequelize: Sequelize): void {
  WebhookEndpoint.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      url: { type: DataTypes.TEXT, allowNull: false },
      description: DataTypes.TEXT,
      eventTypes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      enabled: { type: DataTypes.BOOLEAN },
      disabledReason: DataTypes.TEXT,
      secretSealed: { type: DataTypes.TEXT, allowNull: false },
      previousSecretSealed: DataTypes.TEXT,
      previousSecretUntil: DataTypes.DATE,
      failingSince: DataTypes.DATE,
      version: { type: DataTypes.INTEGER },
      createdAt: { type: DataTypes.DATE },
      updatedAt: { type: DataTypes.DATE },
      deletedAt: DataTypes.DATE,
    },
    { sequelize, tableName: 'webhook_endpoints' },
  );
  WebhookDelivery.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      endpointId: { type: DataTypes.UUID, allowNull: false },
      eventId: { type: DataTypes.UUID, allowNull: false },
      state: { type: DataTypes.TEXT },
      attemptCount: { type: DataTypes.INTEGER },
      lastStatusCode: DataTypes.INTEGER,
      lastError: DataTypes.TEXT,
      nextAttemptAt: DataTypes.DATE,
      createdAt: { type: DataTypes.DATE },
      settledAt: DataTypes.DATE,
    },
    { sequelize, tableName: 'webhook_deliveries' },
  );
}
