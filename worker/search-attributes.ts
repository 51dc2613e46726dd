import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** Registers the TenantId search attribute; "already exists" counts as success. */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { TenantId: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!/already exists/i.test(message)) throw err;
  } finally {
    await connection.close();
  }
}
