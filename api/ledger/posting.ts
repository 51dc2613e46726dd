import type { Tx } from '../../db/connection';
import type { RecordedStart } from '../../db/repositories/webhooks/events';
import { postingProblemOf } from '../../services/ledger/posting';
import type { Principal } from '../http/context';
import type { ChangeTarget, CompanyScope, CompanyScopes, Opened } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';

/**
 * A document change that posts entries (an invoice's or a payment's posting, allocation, cancellation): the
 * company checked (404, 409 company-archived; `target` first, so an unknown document is 404 even in an archived
 * company), the ledger's refusals at commit answered as problems, the webhook deliveries started after commit.
 */
export async function commitDocumentChange<T>(
  deps: { companies: CompanyScopes; webhookEvents: WebhookEvents },
  principal: Principal,
  legalEntityId: string,
  work: (tx: Tx, scope: CompanyScope, opened: Opened) => Promise<{ result: T; starts: RecordedStart[] }>,
  target?: ChangeTarget,
): Promise<T> {
  let done: { result: T; starts: RecordedStart[] };
  try {
    done = await deps.companies.change(principal, legalEntityId, work, target);
  } catch (err) {
    throw postingProblemOf(err) ?? err;
  }
  await deps.webhookEvents.dispatch(done.starts);
  return done.result;
}
