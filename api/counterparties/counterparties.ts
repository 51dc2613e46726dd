import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/connection';
import {
  findCounterparty,
  insertCounterparty,
  listCounterparties as listCounterpartyRows,
  replaceCounterparty,
  type CounterpartyRow,
} from '../../db/repositories/counterparties/counterparties';
import { counterpartyDetailsOf, identityOf, identityTaken } from '../../core/counterparties/counterparties';
import type { AuditAction } from '../../core/audit/audit-actions';
import { AppError } from '../../core/shared/problems';
import type { Schemas } from '../http/operation-handler';
import type { Principal, RequestContext } from '../http/context';
import { recordCallerEvent } from '../../services/audit/caller-events';
import type { CompanyScope, CompanyScopes } from '../organisation/company-scope';
import { pageOf, type ArchivedFilter, type PageQuery } from '../http/pages';

type Counterparty = Schemas['Counterparty'];

const SUBJECT = 'COUNTERPARTY';

async function requireCounterparty(tx: Tx, scope: CompanyScope, id: string, options: { lock?: boolean } = {}): Promise<CounterpartyRow> {
  const row = await findCounterparty(tx, scope, id, options);
  // Another company's or tenant's counterparty is not there either: the caller learns nothing about it.
  if (!row) throw new AppError('not-found', 'No counterparty with this id in this company');
  return row;
}

/** The register of a company's customers and suppliers. */
export function createCounterparties(companies: CompanyScopes) {
  async function listCounterparties(
    principal: Principal,
    legalEntityId: string,
    query: PageQuery & { q: string; archived: ArchivedFilter },
  ): Promise<Schemas['CounterpartyPage']> {
    const archived = query.archived === 'all' ? null : query.archived === 'true';
    const { rows, total } = await companies.read(principal, legalEntityId, (tx, company) =>
      listCounterpartyRows(tx, company, { q: query.q, archived, limit: query.size, offset: query.page * query.size }),
    );
    return pageOf(rows, query, total);
  }

  async function getCounterparty(principal: Principal, legalEntityId: string, id: string): Promise<Counterparty> {
    return companies.read(principal, legalEntityId, (tx, company) => requireCounterparty(tx, company, id));
  }

  async function createCounterparty(principal: Principal, legalEntityId: string, input: Schemas['CounterpartyCreate'], ctx: RequestContext): Promise<Counterparty> {
    const details = counterpartyDetailsOf(input);
    return companies.change(principal, legalEntityId, async (tx, company) => {
      const row = await insertCounterparty(tx, company, { id: randomUUID(), ...details });
      if (!row) {
        // The only unique keys besides a fresh id are the TIN's and the PINFL's, and one of them was given.
        const identity = identityOf(details)!;
        throw identityTaken(identity.field, identity.value);
      }
      await recordCallerEvent(tx, principal, ctx, { action: 'counterparty.created', subjectType: SUBJECT, subjectId: row.id, details: 'version 1' });
      return row;
    });
  }

  async function updateCounterparty(
    principal: Principal,
    legalEntityId: string,
    id: string,
    input: Schemas['CounterpartyUpdate'],
    ctx: RequestContext,
  ): Promise<Counterparty> {
    const details = counterpartyDetailsOf(input);
    const stale = () => new AppError('stale-version', `The counterparty changed since version ${input.expectedVersion}; reload it and retry`);
    return companies.change(
      principal,
      legalEntityId,
      async (tx, company) => {
        // Held until commit, so whether this change archives it is decided on the version it replaces.
        const current = await requireCounterparty(tx, company, id, { lock: true });
        if (current.version !== input.expectedVersion) throw stale();
        const outcome = await replaceCounterparty(tx, company, { id, ...details, archived: input.archived, expectedVersion: input.expectedVersion });
        if (outcome.kind === 'stale') throw stale();
        if (outcome.kind === 'identity-taken') throw identityTaken(outcome.field, details[outcome.field]!);
        const row = outcome.row;
        const action: AuditAction = row.archived && !current.archived ? 'counterparty.archived' : 'counterparty.updated';
        const restored = !row.archived && current.archived ? ', restored from the archive' : '';
        await recordCallerEvent(tx, principal, ctx, { action, subjectType: SUBJECT, subjectId: row.id, details: `version ${row.version}${restored}` });
        return row;
      },
      async (tx, company) => {
        await requireCounterparty(tx, company, id);
      },
    );
  }

  return { listCounterparties, getCounterparty, createCounterparty, updateCounterparty };
}
