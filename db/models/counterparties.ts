import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Counterparty extends Model<InferAttributes<Counterparty>, InferCreationAttributes<Counterparty>> {
  declare tenantId: string;
  declare id: string;
  declare legalEntityId: string;
  declare name: string;
  declare tin: string | null;
  declare pinfl: string | null;
  declare vatRegistrationCode: string | null;
  declare bankAccounts: Array<{ bankCode: string; accountNumber: string }>;
  declare address: string | null;
  declare paymentTermsDays: number;
  declare archived: boolean;
  declare version: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

export function initCounterpartyModels(sequelize: Sequelize): void {
  Counterparty.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      tin: DataTypes.TEXT,
      pinfl: DataTypes.TEXT,
      vatRegistrationCode: DataTypes.TEXT,
      bankAccounts: { type: DataTypes.JSONB, allowNull: false },
      address: DataTypes.TEXT,
      paymentTermsDays: { type: DataTypes.INTEGER, allowNull: false },
      archived: { type: DataTypes.BOOLEAN, allowNull: false },
      version: { type: DataTypes.BIGINT, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      updatedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'counterparties' },
  );
}
