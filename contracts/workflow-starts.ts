// A workflow start as the outbox (table workflow_starts) keeps it: what the API records in a mutation's
// transaction and what the start relay hands to Temporal. Inputs are business ids, never secrets.

export type IdReusePolicy = 'ALLOW_DUPLICATE' | 'ALLOW_DUPLICATE_FAILED_ONLY' | 'REJECT_DUPLICATE';

export interface WorkflowStart {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  args: unknown[];
  /** The TenantId search attribute, when the workflow belongs to a workspace. */
  tenantId: string | null;
  /**
   * REJECT_DUPLICATE for ids made from a request's own random id (a second run is never right);
   * ALLOW_DUPLICATE where a business key may legitimately run again (a failed close re-requested).
   */
  idReusePolicy: IdReusePolicy;
}

export interface PendingStart extends WorkflowStart {
  id: string;
  attempts: number;
}

/** What starting one row came to: started now, found already started (by this row or another), or not reached. */
export type StartOutcome = { outcome: 'STARTED' | 'ALREADY_STARTED' } | { outcome: 'UNAVAILABLE'; error: string };
