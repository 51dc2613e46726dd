import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** Rows are never updated or deleted; the database rejects both. */
export class AuditEvent extends Model<InferAttributes<AuditEvent>, InferCreationAttributes<AuditEvent>> {
  declare tenantId: string;
  declare id: string;
  declare occurredAt: CreationOptional<Date>;
  declare action: string;
  declare category: string;
  declare actorMembershipId: string | null;
  declare actorDisplayName: string;
  declare systemActor: boolean;
  declare correlationId: string;
  declare subjectType: string;
  declare subjectId: string;
  declare ipAddress: string | null;
  declare details: string;
  declare deliveryState: CreationOptional<string>;
}

export function initAuditModels(sequelize: Sequelize): void {
  AuditEvent.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      // Left to the database's clock so that events of one transaction keep their order.
      occurredAt: { type: DataTypes.DATE },
      action: { type: DataTypes.TEXT, allowNull: false },
      category: { type: DataTypes.TEXT, allowNull: false },
      actorMembershipId: DataTypes.UUID,
      actorDisplayName: { type: DataTypes.TEXT, allowNull: false },
      systemActor: { type: DataTypes.BOOLEAN, allowNull: false },
      correlationId: { type: DataTypes.UUID, allowNull: false },
      subjectType: { type: DataTypes.TEXT, allowNull: false },
      subjectId: { type: DataTypes.UUID, allowNull: false },
      ipAddress: DataTypes.TEXT,
      details: { type: DataTypes.TEXT, allowNull: false },
      deliveryState: { type: DataTypes.TEXT },
    },
    { sequelize, tableName: 'audit_events' },
  );
}
