import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { IdReusePolicy } from '../../contracts/workflow-starts';

/** The outbox of workflow starts: recorded with a mutation's commit, settled by the request or the relay. */
export class WorkflowStart extends Model<InferAttributes<WorkflowStart>, InferCreationAttributes<WorkflowStart>> {
  declare id: string;
  declare workflowId: string;
  declare workflowType: string;
  declare taskQueue: string;
  declare args: unknown[];
  /** The TenantId search attribute (not a tenant-scoped table: the relay starts every workspace's work). */
  declare tenantAttribute: string | null;
  declare idReusePolicy: IdReusePolicy;
  // Left to the database's defaults and clock.
  declare createdAt: CreationOptional<Date>;
  declare attempts: CreationOptional<number>;
  declare nextAttemptAt: CreationOptional<Date>;
  declare lastError: CreationOptional<string | null>;
  declare startedAt: CreationOptional<Date | null>;
  declare outcome: CreationOptional<'STARTED' | 'ALREADY_STARTED' | null>;
}

export function initWorkflowModels(sequelize: Sequelize): void {
  WorkflowStart.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      workflowId: { type: DataTypes.TEXT, allowNull: false },
      workflowType: { type: DataTypes.TEXT, allowNull: false },
      taskQueue: { type: DataTypes.TEXT, allowNull: false },
      args: { type: DataTypes.JSONB, allowNull: false },
      tenantAttribute: DataTypes.UUID,
      idReusePolicy: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE },
      attempts: { type: DataTypes.INTEGER },
      nextAttemptAt: { type: DataTypes.DATE },
      lastError: DataTypes.TEXT,
      startedAt: DataTypes.DATE,
      outcome: DataTypes.TEXT,
    },
    { sequelize, tableName: 'workflow_starts' },
  );
}
