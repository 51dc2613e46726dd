// Housekeeping's contracts: the workflow the `housekeeping` Schedule runs and its one activity. Each kind
// is a retention rule of the database (the app_prune function names them and their ages).

export const HOUSEKEEPING_WORKFLOW = 'housekeepingWorkflow';

export const PRUNE_KINDS = [
  'magic-links',
  'totp-enrollments',
  'factor-attempts',
  'email-challenge-codes',
  'request-limits',
  'invitations',
  'push-devices',
  'mail-events',
  'workflow-starts',
] as const;
export type PruneKind = (typeof PRUNE_KINDS)[number];

export interface HousekeepingInput {
  /** Rows deleted per statement (one short transaction each). */
  batchSize: number;
  /** Statements per kind and run at most; what is left waits for the next run. */
  maxBatches: number;
}

export interface PruneResult {
  kind: PruneKind;
  deleted: number;
  batches: number;
  /** False when maxBatches stopped it with rows left over. */
  complete: boolean;
}

export interface HousekeepingResult {
  /** Rows deleted per kind. */
  pruned: Record<PruneKind, number>;
  /** The kinds that still had rows left when their batch budget ran out. */
  leftOver: PruneKind[];
}

export interface HousekeepingActivities {
  pruneExpired(input: HousekeepingInput & { kind: PruneKind }): Promise<PruneResult>;
}
