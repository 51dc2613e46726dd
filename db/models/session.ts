import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A session is one refresh-token family. */
export class Session extends Model<InferAttributes<Session>, InferCreationAttributes<Session>> {
  declare tenantId: string;
  declare id: string;
  declare membershipId: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare lastActivityAt: CreationOptional<Date>;
  declare ipAddress: string | null;
  declare userAgent: string | null;
  declare revokedAt: CreationOptional<Date | null>;
  declare revokedReason: CreationOptional<string | null>;
}

export class RefreshToken extends Model<InferAttributes<RefreshToken>, InferCreationAttributes<RefreshToken>> {
  declare tenantId: string;
  declare id: string;
  declare sessionId: string;
  declare tokenHash: Buffer;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare consumedAt: CreationOptional<Date | null>;
}

export function initSessionModels(sequelize: Sequelize): void {
  Session.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      membershipId: { type: DataTypes.UUID, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      lastActivityAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      ipAddress: DataTypes.TEXT,
      userAgent: DataTypes.TEXT,
      revokedAt: DataTypes.DATE,
      revokedReason: DataTypes.TEXT,
    },
    { sequelize, tableName: 'sessions' },
  );
  RefreshToken.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      sessionId: { type: DataTypes.UUID, allowNull: false },
      tokenHash: { type: DataTypes.BLOB, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      consumedAt: DataTypes.DATE,
    },
    { sequelize, tableName: 'refresh_tokens' },
  );
}
