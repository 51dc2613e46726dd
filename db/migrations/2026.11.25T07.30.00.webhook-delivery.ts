import type { MigrationContext } from './context';

// Webhook delivery (deliverWebhookWorkflow). Per endpoint at most WEBHOOK_ENDPOINT_CONCURRENCY attempts are
// in flight at once, so a slow receiver holds at most that many activity slots of the workers: an attempt
// leases one of the endpoint's slots (rows 0..N-1, made on first use) before it sends and gives it back
// when it records its outcome. A lease ends by itself after the attempt's deadline, so a worker that dies
// mid-attempt frees its slot without anyone's help. No connection or transaction is held while the
// receiver answers. The mail to a workspace's ADMINs about an endpoint the service disabled is recorded
// with its own purpose.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE webhook_endpoint_slots (
      tenant_id uuid NOT NULL,
      endpoint_id uuid NOT NULL,
      slot integer NOT NULL CHECK (slot >= 0),
      lease_id uuid,
      held_until timestamptz,
      PRIMARY KEY (tenant_id, endpoint_id, slot),
      FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints(tenant_id, id),
      CHECK ((lease_id IS NULL) = (held_until IS NULL))
    );
    ALTER TABLE webhook_endpoint_slots ENABLE ROW LEVEL SECURITY;
    ALTER TABLE webhook_endpoint_slots FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON webhook_endpoint_slots
      USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

    ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_purpose_check;
    ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_purpose_check
      CHECK (purpose IN ('REGISTRATION', 'INVITATION', 'EMAIL_CODE', 'PASSWORD_RESET', 'WEBHOOK_DISABLED'));
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_purpose_check;
    ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_purpose_check CHECK (purpose IN ('REGISTRATION', 'INVITATION', 'EMAIL_CODE', 'PASSWORD_RESET'));
    DROP TABLE IF EXISTS webhook_endpoint_slots;
  `);
}
