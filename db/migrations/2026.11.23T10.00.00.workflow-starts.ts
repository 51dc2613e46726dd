import type { MigrationContext } from './context';

// The transactional outbox of workflow starts: a mutation that needs a workflow records the start in its
// own transaction, so the start can never be lost between the commit and Temporal. The request then
// starts it at once; whatever it could not start, the relay in every worker retries until Temporal
// takes it. Rows hold workflow names, business ids and non-secret inputs only (never secrets).

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE workflow_starts (
      id uuid PRIMARY KEY,
      workflow_id text NOT NULL,
      workflow_type text NOT NULL,
      task_queue text NOT NULL,
      args jsonb NOT NULL,
      -- The TenantId search attribute. Not a tenant-scoped table: the relay starts every workspace's work.
      tenant_attribute uuid,
      id_reuse_policy text NOT NULL CHECK (id_reuse_policy IN ('ALLOW_DUPLICATE', 'ALLOW_DUPLICATE_FAILED_ONLY', 'REJECT_DUPLICATE')),
      created_at timestamptz NOT NULL DEFAULT now(),
      attempts integer NOT NULL DEFAULT 0,
      -- The request that recorded the start dispatches it at once; the relay waits ten seconds before it
      -- steps in, so the two do not race for a fresh row.
      next_attempt_at timestamptz NOT NULL DEFAULT now() + interval '10 seconds',
      last_error text,
      started_at timestamptz,
      outcome text CHECK (outcome IN ('STARTED', 'ALREADY_STARTED')),
      CHECK ((started_at IS NULL) = (outcome IS NULL))
    );
    CREATE INDEX workflow_starts_due_idx ON workflow_starts (next_attempt_at) WHERE started_at IS NULL;
    CREATE INDEX workflow_starts_workflow_idx ON workflow_starts (workflow_id) WHERE started_at IS NULL;
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP TABLE IF EXISTS workflow_starts;`);
}
