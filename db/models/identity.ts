import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Identity extends Model<InferAttributes<Identity>, InferCreationAttributes<Identity>> {
  declare id: string;
  declare email: string;
  declare passwordHash: string;
  declare emailFactorEnabled: CreationOptional<boolean>;
  declare totpSecretEncrypted: CreationOptional<string | null>;
  declare totpEnabledAt: CreationOptional<Date | null>;
  declare totpLastStep: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

/** A magic link: an emailed one-time link, stored as the hash of its token (table magic_links). */
export class MagicLink extends Model<InferAttributes<MagicLink>, InferCreationAttributes<MagicLink>> {
  declare id: string;
  declare email: string;
  /** REGISTRATION (a link to register) or PASSWORD_RESET (a link to set a new password). */
  declare purpose: CreationOptional<'REGISTRATION' | 'PASSWORD_RESET'>;
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
  /** The magic link the attempt was made with (column proof_id). */
  declare magicLinkId: string;
  declare existingIdentityId: string | null;
  declare passwordHash: string | null;
  declare companyName: string | null;
  declare companyTaxId: string | null;
  declare correlationId: string;
  declare ipAddress: string | null;
  declare createdAt: CreationOptional<Date>;
}

/** A TOTP secret awaiting its first code; it becomes the identity's secret once confirmed. */
export class TotpEnrollment extends Model<InferAttributes<TotpEnrollment>, InferCreationAttributes<TotpEnrollment>> {
  declare id: string;
  declare identityId: string;
  declare secretEncrypted: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare confirmedAt: CreationOptional<Date | null>;
}

export class RecoveryCode extends Model<InferAttributes<RecoveryCode>, InferCreationAttributes<RecoveryCode>> {
  declare id: string;
  declare identityId: string;
  declare codeHash: string;
  declare createdAt: CreationOptional<Date>;
  declare usedAt: CreationOptional<Date | null>;
  declare revokedAt: CreationOptional<Date | null>;
}

/** One reserved attempt; counted by the limit until a passing check releases it (the only update allowed). */
export class FactorAttempt extends Model<InferAttributes<FactorAttempt>, InferCreationAttributes<FactorAttempt>> {
  declare id: CreationOptional<string>;
  declare identityId: string;
  declare attemptedAt: CreationOptional<Date>;
  declare kind: 'EMAIL_CODE' | 'TOTP' | 'RECOVERY_CODE' | 'CURRENT_PASSWORD';
  declare releasedAt: CreationOptional<Date | null>;
}

/** Deleted when the challenge workflow ends, never updated (the application role has no UPDATE grant). */
export class EmailChallengeCode extends Model<InferAttributes<EmailChallengeCode>, InferCreationAttributes<EmailChallengeCode>> {
  declare challengeId: string;
  declare identityId: string;
  declare codeEncrypted: string;
  declare createdAt: CreationOptional<Date>;
}

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
  declare secondFactorVerifiedAt: CreationOptional<Date | null>;
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

export function initIdentityModels(sequelize: Sequelize): void {
  Identity.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      email: { type: DataTypes.TEXT, allowNull: false },
      passwordHash: { type: DataTypes.TEXT, allowNull: false },
      emailFactorEnabled: { type: DataTypes.BOOLEAN, defaultValue: false },
      totpSecretEncrypted: DataTypes.TEXT,
      totpEnabledAt: DataTypes.DATE,
      totpLastStep: DataTypes.BIGINT,
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      updatedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'identities' },
  );
  MagicLink.init(
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
    { sequelize, tableName: 'magic_links' },
  );
  RegistrationAttempt.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      magicLinkId: { type: DataTypes.UUID, allowNull: false, field: 'proof_id' },
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
  TotpEnrollment.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      identityId: { type: DataTypes.UUID, allowNull: false },
      secretEncrypted: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      confirmedAt: DataTypes.DATE,
    },
    { sequelize, tableName: 'totp_enrollments' },
  );
  RecoveryCode.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      identityId: { type: DataTypes.UUID, allowNull: false },
      codeHash: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      usedAt: DataTypes.DATE,
      revokedAt: DataTypes.DATE,
    },
    { sequelize, tableName: 'recovery_codes' },
  );
  FactorAttempt.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
      identityId: { type: DataTypes.UUID, allowNull: false },
      // Left to the database's clock (clock_timestamp()).
      attemptedAt: { type: DataTypes.DATE },
      kind: { type: DataTypes.TEXT, allowNull: false },
      releasedAt: { type: DataTypes.DATE },
    },
    { sequelize, tableName: 'factor_attempts' },
  );
  EmailChallengeCode.init(
    {
      challengeId: { type: DataTypes.UUID, primaryKey: true },
      identityId: { type: DataTypes.UUID, allowNull: false },
      codeEncrypted: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'email_challenge_codes' },
  );
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
      secondFactorVerifiedAt: DataTypes.DATE,
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
