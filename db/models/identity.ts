import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Identity extends Model<InferAttributes<Identity>, InferCreationAttributes<Identity>> {
  declare id: string;
  declare email: string;
  declare passwordHash: string;
  declare emailFactorEnabled: CreationOptional<boolean>;
  declare totpSecretEncrypted: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

export class RegistrationProof extends Model<InferAttributes<RegistrationProof>, InferCreationAttributes<RegistrationProof>> {
  declare id: string;
  declare email: string;
  declare purpose: CreationOptional<'REGISTRATION'>;
  declare tokenHash: Buffer;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare mailedAt: CreationOptional<Date | null>;
  declare supersededAt: CreationOptional<Date | null>;
  declare consumedAt: CreationOptional<Date | null>;
  declare consumedByAttempt: CreationOptional<string | null>;
  declare result: CreationOptional<Record<string, string> | null>;
}

export class RegistrationAttempt extends Model<InferAttributes<RegistrationAttempt>, InferCreationAttributes<RegistrationAttempt>> {
  declare id: string;
  declare proofId: string;
  declare existingIdentityId: string | null;
  declare passwordHash: string | null;
  declare companyName: string | null;
  declare companyTaxId: string | null;
  declare correlationId: string;
  declare ipAddress: string | null;
  declare createdAt: CreationOptional<Date>;
}

export function initIdentityModels(sequelize: Sequelize): void {
  Identity.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      email: { type: DataTypes.TEXT, allowNull: false },
      passwordHash: { type: DataTypes.TEXT, allowNull: false },
      emailFactorEnabled: { type: DataTypes.BOOLEAN, defaultValue: false },
      totpSecretEncrypted: DataTypes.TEXT,
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      updatedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'identities' },
  );
  RegistrationProof.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      email: { type: DataTypes.TEXT, allowNull: false },
      purpose: { type: DataTypes.TEXT, defaultValue: 'REGISTRATION' },
      tokenHash: { type: DataTypes.BLOB, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      mailedAt: DataTypes.DATE,
      supersededAt: DataTypes.DATE,
      consumedAt: DataTypes.DATE,
      consumedByAttempt: DataTypes.UUID,
      result: DataTypes.JSONB,
    },
    { sequelize, tableName: 'registration_proofs' },
  );
  RegistrationAttempt.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      proofId: { type: DataTypes.UUID, allowNull: false },
      existingIdentityId: DataTypes.UUID,
      passwordHash: DataTypes.TEXT,
      companyName: DataTypes.TEXT,
      companyTaxId: DataTypes.TEXT,
      correlationId: { type: DataTypes.UUID, allowNull: false },
      ipAddress: DataTypes.TEXT,
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'registration_attempts' },
  );
}
