import type { MigrationContext } from './context';

// A test event is refused while its endpoint has too many undelivered deliveries (WEBHOOK_MAX_PENDING_DELIVERIES).
// The count reads this partial index: only the PENDING deliveries of the endpoint, however many it delivered.

export async function up({ sql }: MigrationContext): Promise<void> {
  await sql(`CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (tenant_id, endpoint_id) WHERE state = 'PENDING';`);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql('DROP INDEX IF EXISTS webhook_deliveries_pending_idx;');
}
