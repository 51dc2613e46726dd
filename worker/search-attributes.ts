import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Logger } from '../runtime/logger';
import type { TemporalConnectionOptions } from '../adapters/temporal/connection';

/**
 * Registers the TenantId search attribute; "already exists" counts as success. Where the operator API is
 * not ours to call (Temporal Cloud: attributes are made in its console or with tcld), a refusal is logged
 * with what to do, and the worker starts.
 */
export async function ensureSearchAttributes(options: TemporalConnectionOptions, namespace: string, logger: Logger): Promise<void> {
  const connection = await Connection.connect(options);
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { TenantId: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/already exists/i.test(message)) return;
    if (/permission|unauthori[sz]ed|not allowed|unimplemented/i.test(message)) {
      logger.warn('the TenantId search attribute could not be created here: create it (Keyword) in the namespace', { namespace, reason: message });
      return;
    }
    throw err;
  } finally {
    await connection.close();
  }
}
