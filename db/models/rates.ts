import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** One currency's rate from one source for one effective day (NUMERIC values arrive as strings). */
export class ExchangeRate extends Model<InferAttributes<ExchangeRate>, InferCreationAttributes<ExchangeRate>> {
  declare source: string;
  declare effectiveDate: string;
  declare currencyCode: string;
  declare currencyName: string;
  declare rate: string | null;
  declare buyRate: string | null;
  declare sellRate: string | null;
  declare sourceUpdatedAt: Date | null;
  declare fetchedAt: Date;
}

/** A source's refresh state. */
export class RateSourceState extends Model<InferAttributes<RateSourceState>, InferCreationAttributes<RateSourceState>> {
  declare code: string;
  declare lastAttemptAt: Date | null;
  declare lastSuccessAt: Date | null;
  declare lastError: string | null;
}

export function initRateModels(sequelize: Sequelize): void {
  ExchangeRate.init(
    {
      source: { type: DataTypes.TEXT, primaryKey: true },
      effectiveDate: { type: DataTypes.DATEONLY, primaryKey: true },
      currencyCode: { type: DataTypes.TEXT, primaryKey: true },
      currencyName: { type: DataTypes.TEXT, allowNull: false },
      rate: DataTypes.DECIMAL(25, 10),
      buyRate: DataTypes.DECIMAL(25, 10),
      sellRate: DataTypes.DECIMAL(25, 10),
      sourceUpdatedAt: DataTypes.DATE,
      fetchedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { sequelize, tableName: 'exchange_rates' },
  );
  RateSourceState.init(
    {
      code: { type: DataTypes.TEXT, primaryKey: true },
      lastAttemptAt: DataTypes.DATE,
      lastSuccessAt: DataTypes.DATE,
      lastError: DataTypes.TEXT,
    },
    { sequelize, tableName: 'rate_sources' },
  );
}
