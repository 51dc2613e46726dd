import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** Per-company entry counter and closing cut-off; never deleted (the application role has no DELETE grant). */
export class LedgerState extends Model<InferAttributes<LedgerState>, InferCreationAttributes<LedgerState>> {
  declare tenantId: string;
  declare legalEntityId: string;
  declare nextEntryNumber: CreationOptional<string>;
  declare lockedThrough: CreationOptional<string | null>;
  declare lastClosedDate: CreationOptional<string | null>;
}

/** Rows are never updated or deleted; the database rejects both. */
export class JournalLine extends Model<InferAttributes<JournalLine>, InferCreationAttributes<JournalLine>> {
  declare tenantId: string;
  declare entryId: string;
  declare lineNo: number;
  declare legalEntityId: string;
  declare entryDate: string;
  declare accountCode: string;
  declare subaccountId: string | null;
  declare counterpartyId: CreationOptional<string | null>;
  declare debit: string;
  declare credit: string;
  declare memo: string | null;
  declare currency: CreationOptional<string | null>;
  declare currencyAmount: CreationOptional<string | null>;
  declare rate: CreationOptional<string | null>;
  declare rateSource: CreationOptional<'CBU' | 'BANK' | 'MANUAL' | null>;
  declare rateDate: CreationOptional<string | null>;
}

/** Updated as the close runs, never deleted (the application role has no DELETE grant). */
export class PeriodClose extends Model<InferAttributes<PeriodClose>, InferCreationAttributes<PeriodClose>> {
  declare tenantId: string;
  declare id: string;
  declare legalEntityId: string;
  declare closeDate: string;
  declare requestId: string;
  declare status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  declare failureReason: CreationOptional<string | null>;
  declare requestedAt: CreationOptional<Date>;
  declare requestedByMembershipId: string | null;
  declare completedAt: CreationOptional<Date | null>;
  declare entryCount: CreationOptional<string | null>;
  declare correlationId: string;
}

/** A revaluation's run: updated as it runs, never deleted (the application role has no DELETE grant). */
export class Revaluation extends Model<InferAttributes<Revaluation>, InferCreationAttributes<Revaluation>> {
  declare tenantId: string;
  declare id: string;
  declare legalEntityId: string;
  declare revaluationDate: string;
  declare status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  declare requestedBy: 'REQUEST' | 'PERIOD_CLOSE';
  declare closeId: string | null;
  declare requestedByMembershipId: string | null;
  declare requestedAt: CreationOptional<Date>;
  declare completedAt: CreationOptional<Date | null>;
  declare failureReason: CreationOptional<string | null>;
  declare entryId: CreationOptional<string | null>;
  declare gainTotal: CreationOptional<string | null>;
  declare lossTotal: CreationOptional<string | null>;
  declare correlationId: string;
}

/** Rows are never updated or deleted; the database rejects both. No primary key: unique per close, account and subaccount. */
export class PeriodCloseBalance extends Model<InferAttributes<PeriodCloseBalance>, InferCreationAttributes<PeriodCloseBalance>> {
  declare tenantId: string;
  declare closeId: string;
  declare legalEntityId: string;
  declare closeDate: string;
  declare accountCode: string;
  declare subaccountId: string | null;
  declare debitTotal: string;
  declare creditTotal: string;
  declare currency: CreationOptional<string | null>;
  declare currencyBalance: CreationOptional<string | null>;
}

export function initLedgerModels(sequelize: Sequelize): void {
  LedgerState.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, primaryKey: true },
      nextEntryNumber: { type: DataTypes.BIGINT, defaultValue: '1' },
      lockedThrough: DataTypes.DATEONLY,
      lastClosedDate: DataTypes.DATEONLY,
    },
    { sequelize, tableName: 'ledger_states' },
  );
  JournalLine.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      entryId: { type: DataTypes.UUID, primaryKey: true },
      lineNo: { type: DataTypes.INTEGER, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, allowNull: false },
      entryDate: { type: DataTypes.DATEONLY, allowNull: false },
      accountCode: { type: DataTypes.TEXT, allowNull: false },
      subaccountId: DataTypes.UUID,
      counterpartyId: DataTypes.UUID,
      debit: { type: DataTypes.DECIMAL(20, 2), allowNull: false },
      credit: { type: DataTypes.DECIMAL(20, 2), allowNull: false },
      memo: DataTypes.TEXT,
      currency: DataTypes.TEXT,
      currencyAmount: DataTypes.DECIMAL(19, 3),
      rate: DataTypes.DECIMAL(25, 10),
      rateSource: DataTypes.TEXT,
      rateDate: DataTypes.DATEONLY,
    },
    { sequelize, tableName: 'journal_lines' },
  );
  Revaluation.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, allowNull: false },
      revaluationDate: { type: DataTypes.DATEONLY, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false },
      requestedBy: { type: DataTypes.TEXT, allowNull: false },
      closeId: DataTypes.UUID,
      requestedByMembershipId: DataTypes.UUID,
      requestedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      completedAt: DataTypes.DATE,
      failureReason: DataTypes.TEXT,
      entryId: DataTypes.UUID,
      gainTotal: DataTypes.DECIMAL(20, 2),
      lossTotal: DataTypes.DECIMAL(20, 2),
      correlationId: { type: DataTypes.UUID, allowNull: false },
    },
    { sequelize, tableName: 'revaluations' },
  );
  PeriodClose.init(
    {
      tenantId: { type: DataTypes.UUID, primaryKey: true },
      id: { type: DataTypes.UUID, primaryKey: true },
      legalEntityId: { type: DataTypes.UUID, allowNull: false },
      closeDate: { type: DataTypes.DATEONLY, allowNull: false },
      requestId: { type: DataTypes.UUID, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false },
      failureReason: DataTypes.TEXT,
      requestedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      requestedByMembershipId: DataTypes.UUID,
      completedAt: DataTypes.DATE,
      entryCount: DataTypes.BIGINT,
      correlationId: { type: DataTypes.UUID, allowNull: false },
    },
    { sequelize, tableName: 'period_closes' },
  );
  PeriodCloseBalance.init(
    {
      tenantId: { type: DataTypes.UUID, allowNull: false },
      closeId: { type: DataTypes.UUID, allowNull: false },
      legalEntityId: { type: DataTypes.UUID, allowNull: false },
      closeDate: { type: DataTypes.DATEONLY, allowNull: false },
      accountCode: { type: DataTypes.TEXT, allowNull: false },
      subaccountId: DataTypes.UUID,
      debitTotal: { type: DataTypes.DECIMAL(22, 2), allowNull: false },
      creditTotal: { type: DataTypes.DECIMAL(22, 2), allowNull: false },
      currency: DataTypes.TEXT,
      currencyBalance: DataTypes.DECIMAL(23, 3),
    },
    { sequelize, tableName: 'period_close_balances' },
  );
  // The table has no primary key; without this Sequelize would add and select an `id` column.
  PeriodCloseBalance.removeAttribute('id');
}
