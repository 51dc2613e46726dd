import { memberOperation, type HandlersOf } from '../http/operation-handler';
import type { createRates } from './rates';

export type RatesOperation = 'listRates' | 'refreshRates';

export function ratesHandlers(deps: { rates: ReturnType<typeof createRates> }): HandlersOf<RatesOperation> {
  const { rates } = deps;
  return {
    listRates: memberOperation(async ({ query }) => ({ status: 200, body: await rates.listRates(query) })),
    refreshRates: memberOperation(async ({ principal, ctx }) => ({ status: 202, body: await rates.refreshRates(principal, ctx) })),
  };
}
