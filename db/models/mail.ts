import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { MailPurpose, MailState } from '../../core/mail/mail';

/** One logical mail (table mail_messages) and where it stands; its state only moves forward (mail_state_rank). */
export class Mail extends Model<InferAttributes<Mail>, InferCreationAttributes<Mail>> {
  declare id: string;
  declare mailKey: string;
  declare purpose: MailPurpose;
  declare toAddress: string;
  declare provider: 'sendgrid' | 'outbox';
  declare providerMessageId: CreationOptional<string | null>;
  declare state: CreationOptional<MailState>;
  declare stateAt: CreationOptional<Date>;
  declare detail: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}

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
  Mail.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      mailKey: { type: DataTypes.TEXT, allowNull: false },
      purpose: { type: DataTypes.TEXT, allowNull: false },
      toAddress: { type: DataTypes.TEXT, allowNull: false },
      provider: { type: DataTypes.TEXT, allowNull: false },
      providerMessageId: DataTypes.TEXT,
      state: { type: DataTypes.TEXT },
      stateAt: { type: DataTypes.DATE },
      detail: DataTypes.TEXT,
      createdAt: { type: DataTypes.DATE },
    },
    { sequelize, tableName: 'mail_messages' },
  );
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
