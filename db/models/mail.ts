import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** The development mail adapter's outbox; never written when SendGrid is configured. */
export class MailOutboxMessage extends Model<InferAttributes<MailOutboxMessage>, InferCreationAttributes<MailOutboxMessage>> {
  declare id: CreationOptional<string>;
  declare toAddress: string;
  declare subject: string;
  declare text: string;
  declare messageId: string;
  declare sentAt: CreationOptional<Date>;
}

export function initMailModels(sequelize: Sequelize): void {
  MailOutboxMessage.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      toAddress: { type: DataTypes.TEXT, allowNull: false },
      subject: { type: DataTypes.TEXT, allowNull: false },
      text: { type: DataTypes.TEXT, allowNull: false },
      messageId: { type: DataTypes.TEXT, allowNull: false },
      sentAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'mail_outbox' },
  );
}
