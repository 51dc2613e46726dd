import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import type { RoleCode } from '../../core/organisation/roles';

export type { RoleCode };
export type MembershipStatus = 'ACTIVE' | 'SUSPENDED';

export class Tenant extends Model<InferAttributes<Tenant>, InferCreationAttributes<Tenant>> {
  declare id: string;
  declare slug: string;
  declare createdAt: CreationOptional<Date>;
}

export class LegalEntity extends Model<InferAttributes<LegalEntity>, InferCreationAttributes<LegalEntity>> {
  declare tenantId: string;
  declare id: string;
  declare name: string | null;
  declare taxId: string | null;
  declare onboardingComplete: boolean;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare tenantId: string;
  declare id: string;
  declare identityId: string;
  declare displayName: string;
  declare contactEmail: string | null;
  declare lastLoginAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
}

export class Membership extends Model<InferAttributes<Membership>, InferCreationAttributes<Membership>> {
  declare tenantId: string;
  declare id: string;
  declare userId: string;
  declare status: MembershipStatus;
  declare lockVersion: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare endedAt: CreationOptional<Date | null>;
}

export class Role extends Model<InferAttributes<Role>, InferCreationAttributes<Role>> {
  declare tenantId: string;
  declare id: string;
  declare code: RoleCode;
  declare name: string;
  declare defaultPermissions: CreationOptional<boolean>;
  declare lockVersion: CreationOptional<number>;
}

export class RolePermission extends Model<InferAttributes<RolePermission>, InferCreationAttributes<RolePermission>> {
  declare tenantId: string;
  declare roleId: string;
  declare permission: string;
}

export class MembershipRole extends Model<InferAttributes<MembershipRole>, InferCreationAttributes<MembershipRole>> {
  declare tenantId: string;
  declare membershipId: string;
  declare roleId: string;
}

const tenantKey = { tenantId: { type: DataTypes.UUID, primaryKey: true } };

export function initOrganisationModels(sequelize: Sequelize): void {
  Tenant.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      slug: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'tenants' },
  );
  LegalEntity.init(
    {
      ...tenantKey,
      id: { type: DataTypes.UUID, primaryKey: true },
      name: DataTypes.TEXT,
      taxId: DataTypes.TEXT,
      onboardingComplete: { type: DataTypes.BOOLEAN, allowNull: false },
      archivedAt: DataTypes.DATE,
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      updatedAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'legal_entities' },
  );
  User.init(
    {
      ...tenantKey,
      id: { type: DataTypes.UUID, primaryKey: true },
      identityId: { type: DataTypes.UUID, allowNull: false },
      displayName: { type: DataTypes.TEXT, allowNull: false },
      contactEmail: DataTypes.TEXT,
      lastLoginAt: DataTypes.DATE,
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'users' },
  );
  Membership.init(
    {
      ...tenantKey,
      id: { type: DataTypes.UUID, primaryKey: true },
      userId: { type: DataTypes.UUID, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false },
      lockVersion: { type: DataTypes.INTEGER, defaultValue: 0 },
      createdAt: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
      endedAt: DataTypes.DATE,
    },
    { sequelize, tableName: 'memberships' },
  );
  Role.init(
    {
      ...tenantKey,
      id: { type: DataTypes.UUID, primaryKey: true },
      code: { type: DataTypes.TEXT, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      defaultPermissions: { type: DataTypes.BOOLEAN, defaultValue: true },
      lockVersion: { type: DataTypes.INTEGER, defaultValue: 0 },
    },
    { sequelize, tableName: 'roles' },
  );
  RolePermission.init(
    {
      ...tenantKey,
      roleId: { type: DataTypes.UUID, primaryKey: true },
      permission: { type: DataTypes.TEXT, primaryKey: true },
    },
    { sequelize, tableName: 'role_permissions' },
  );
  MembershipRole.init(
    {
      ...tenantKey,
      membershipId: { type: DataTypes.UUID, primaryKey: true },
      roleId: { type: DataTypes.UUID, primaryKey: true },
    },
    { sequelize, tableName: 'membership_roles' },
  );
}
