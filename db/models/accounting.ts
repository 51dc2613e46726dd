import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { AccountType } from '../../core/ledger/accounts';

/** custom = false: overrides a global account's name and enabled (type null); custom = true: the company's own account. */
export class CompanyAccount extends Model<InferAttributes<CompanyAccount>, InferCreationAttributes<CompanyAccount>> {
  declare tenantId: string;
  declare legalEntityId: string;
  declare code: string;
  declare custom: boolean;
  declare name: string;
  declare type: AccountType | null;
  declare enabled: boolean;
  declare version: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

export class CompanySubaccount extends Model<InferAttributes<CompanySubaccount>, InferCreationAttributes<CompanySubaccount>> {
  declare tenantId: string;
  declare id: string;
  declare legalEntityId: string;
  declare parentCode: string;
  declare code: string;
  declare name: string;
  declare enabled: boolean;
  declare version: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

export class CompanyAccountingSettings extends Model<
  InferAttributes<CompanyAccountingSettings>,
  InferCreationAttributes<CompanyAccountingSettings>
> {
  declare tenantId: string;
  declare legalEntityId: string;
  declare depreciationMethod: 'STRAIGHT_LINE';
  declare inventoryValuationMethod: 'FIFO';
  declare taxRegime: 'GENERAL' | 'SIMPLIFIED';
  declare vatRate: string;
  declare requireCounterpartyOnSettlements: CreationOptional<boolean>;
  declare version: string;
  declare updatedAt: CreationOptional<Date>;
}

export function initAccountingModels(sequelize: Sequelize): void {
  CompanyAccount.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, primaryKey: true },
      code: { type: DataTypes.TEXT, primaryKey: true },
      custom: { type: DataTypes.BOOLEAN, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      type: DataTypes.TEXT,
      enabled: { type: DataTypes.BOOLEAN, allowNull: false },
      version: { type: DataTypes.BIGINT, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      updatedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'company_accounts' },
  );
  CompanySubaccount.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, allowNull: false },
      parentCode: { type: DataTypes.TEXT, allowNull: false },
      code: { type: DataTypes.TEXT, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      enabled: { type: DataTypes.BOOLEAN, allowNull: false },
      version: { type: DataTypes.BIGINT, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      updatedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'company_subaccounts' },
  );
  CompanyAccountingSettings.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, primaryKey: true },
      depreciationMethod: { type: DataTypes.TEXT, allowNull: false },
      inventoryValuationMethod: { type: DataTypes.TEXT, allowNull: false },
      taxRegime: { type: DataTypes.TEXT, allowNull: false },
      vatRate: { type: DataTypes.DECIMAL(5, 2), allowNull: false },
      requireCounterpartyOnSettlements: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      version: { type: DataTypes.BIGINT, allowNull: false },
      updatedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'company_accounting_settings' },
  );
}
