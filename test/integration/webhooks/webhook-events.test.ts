import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { Webhook } from 'standardwebhooks';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { withShortLockWaits } from '../../helpers/schema-changes';
import { api, bearer, mailedInvitationToken, registerWorkspace, uniqueEmail, type Registered } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, salesBody, saveTaxSettings } from '../../helpers/invoices';
import { until } from '../../helpers/worker-process';
import { deliveryStarts, storedWebhooks, webhooksApi } from '../../helpers/webhook-endpoints';
import { startReceiver } from '../../helpers/webhook-deliveries';
import { deliverWebhookWorkflowId } from '../../../contracts/workflow-ids';
import { loadOpenApiDocument } from '../../../contracts/operations';

// Events are produced by the change that causes them, in its commit: one event and one delivery (with its
// workflow's start in the outbox) per live, enabled endpoint of the workspace subscribed to the type;
// nothing at all when no endpoint subscribes, and nothing when the change rolls back. (The deliveries
// themselves are deliverWebhookWorkflow's part; here the rows are checked.)

let stack: TestStack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  stack = await startTestStack();
  receiver = await startReceiver();
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});

const schemas = (loadOpenApiDocument().components as { schemas: Record<string, { required: string[] }> }).schemas;
/** The data of an event has exactly the fields its schema requires. */
const fieldsOf = (schema: string) => [...schemas[schema]!.required].sort();

const secrets = new Map<string, string>();
async function endpoint(user: Registered, eventTypes: string[]): Promise<string> {
  const created = (await webhooksApi(stack, user).create({ url: receiver.url, eventTypes }).expect(201)).body;
  secrets.set(created.id, created.secret);
  return created.id;
}

async function outboxStarted(eventId: string, count: number) {
  return until(async () => {
    const rows = await stack.admin.query<{ started: boolean }>(
      "SELECT started_at IS NOT NULL AS started FROM workflow_starts WHERE args -> 0 ->> 'eventId' = :eventId",
      { replacements: { eventId }, type: QueryTypes.SELECT },
    );
    return rows.length === count && rows.every((r) => r.started) ? rows : null;
  }, 10_000, `the ${count} delivery start(s) of event ${eventId} dispatched`);
}

describe('journal-entry.posted and journal-entry.reversed (postJournalEntry, reverseJournalEntry)', () => {
  test('when no endpoint of the workspace subscribes, then a posting writes no event, delivery or start', async () => {
    const user = await registerWorkspace(stack);
    await endpoint(user, ['member.updated']);
    const other = await registerWorkspace(stack);
    await endpoint(other, ['journal-entry.posted']);
    await ledgerApi(stack, user).post(simpleEntry('2025-03-03', '10.00')).expect(201);
    expect(await storedWebhooks(stack, user.me.tenantId)).toEqual({ events: [], deliveries: [] });
    expect(await storedWebhooks(stack, other.me.tenantId)).toEqual({ events: [], deliveries: [] });
  });

  test('when endpoints subscribe, then a committed posting writes one event and exactly one delivery and started workflow per live, enabled, subscribed endpoint', async () => {
    const user = await registerWorkspace(stack);
    const hooks = webhooksApi(stack, user);
    const first = await endpoint(user, ['journal-entry.posted']);
    const second = await endpoint(user, ['journal-entry.reversed', 'journal-entry.posted']);
    const disabled = await endpoint(user, ['journal-entry.posted']);
    await hooks.update(disabled, { url: receiver.url, eventTypes: ['journal-entry.posted'], enabled: false, lockVersion: 1 }).expect(200);
    const deleted = await endpoint(user, ['journal-entry.posted']);
    await hooks.remove(deleted).expect(204);
    await endpoint(user, ['member.updated', 'journal-entry.reversed']);

    const posted = await ledgerApi(stack, user).post(simpleEntry('2025-03-04', '1250.5')).expect(201);
    const { events, deliveries } = await storedWebhooks(stack, user.me.tenantId);
    expect(events).toEqual([
      {
        id: expect.any(String),
        type: 'journal-entry.posted',
        payload: {
          entryId: posted.body.id,
          legalEntityId: user.me.company.id,
          number: posted.body.number,
          entryDate: '2025-03-04',
          totalDebit: '1250.50',
          totalCredit: '1250.50',
          lineCount: 2,
          reversalOf: null,
        },
      },
    ]);
    expect(Object.keys(events[0]!.payload).sort()).toEqual(fieldsOf('WebhookJournalEntryData'));
    const eventId = events[0]!.id;
    expect(deliveries.map((d) => ({ endpoint: d.endpoint_id, event: d.event_id, state: d.state })).sort((a, b) => a.endpoint.localeCompare(b.endpoint))).toEqual(
      [first, second].sort().map((id) => ({ endpoint: id, event: eventId, state: expect.stringMatching(/^(PENDING|DELIVERED)$/) })),
    );

    // One outbox start per delivery, named as the contract names the workflow, with ids only, dispatched by the request.
    const starts = await deliveryStarts(stack, eventId);
    expect(starts.map((s) => s.workflow_id).sort()).toEqual([deliverWebhookWorkflowId(first, eventId), deliverWebhookWorkflowId(second, eventId)].sort());
    for (const s of starts) {
      const delivery = deliveries.find((d) => s.workflow_id === deliverWebhookWorkflowId(d.endpoint_id, eventId))!;
      expect(s).toMatchObject({
        workflow_type: 'deliverWebhookWorkflow',
        tenant_attribute: user.me.tenantId,
        id_reuse_policy: 'REJECT_DUPLICATE',
        args: [{ tenantId: user.me.tenantId, endpointId: delivery.endpoint_id, eventId, deliveryId: delivery.id }],
      });
    }
    await outboxStarted(eventId, 2);

    // Delivered end to end: the receiver gets the event once per endpoint, each signed with its endpoint's secret.
    const got = await until(async () => {
      const mine = receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
      return mine.length >= 2 ? mine : null;
    }, 15_000, 'both deliveries received');
    const verified = [first, second].map((id) => got.filter((r) => {
      try {
        new Webhook(secrets.get(id)!).verify(r.body, r.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    }).length);
    expect(verified).toEqual([1, 1]);
    expect(JSON.parse(got[0]!.body)).toEqual({ type: 'journal-entry.posted', timestamp: expect.any(String), tenantId: user.me.tenantId, data: events[0]!.payload });
  });

  test('when a posting rolls back (refused by the period cut-off, or naming an unknown account), then it writes no event; a committed one writes one, and its replay none', async () => {
    const user = await registerWorkspace(stack);
    await endpoint(user, ['journal-entry.posted']);
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('2025-01-10', '5.00')).expect(201);
    const close = await ledger.close('2025-01-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    const before = await storedWebhooks(stack, user.me.tenantId);
    expect(before.events).toHaveLength(1);

    const refused = await ledger.post(simpleEntry('2025-01-20', '7.00')).expect(409);
    expect(refused.body.type).toBe('/problems/period-closed');
    await ledger.post(simpleEntry('2025-02-20', '7.00', '5110', '0001')).expect(400);
    expect(await storedWebhooks(stack, user.me.tenantId)).toEqual(before);

    const body = simpleEntry('2025-02-21', '7.00');
    await ledger.post(body).expect(201);
    await ledger.post(body).expect(201);
    const after = await storedWebhooks(stack, user.me.tenantId);
    expect(after.events).toHaveLength(2);
    expect(after.deliveries).toHaveLength(2);
  });

  test('when an entry is reversed, then journal-entry.reversed goes to its subscribers only, naming the reversed entry', async () => {
    const user = await registerWorkspace(stack);
    const onlyPosted = await endpoint(user, ['journal-entry.posted']);
    const reversals = await endpoint(user, ['journal-entry.reversed']);
    const ledger = ledgerApi(stack, user);
    const original = await ledger.post(simpleEntry('2025-04-01', '30.00')).expect(201);
    const reversal = await ledger.reverse(original.body.id, { requestId: randomUUID(), entryDate: '2025-04-02', reason: 'wrong amount' }).expect(201);
    const { events, deliveries } = await storedWebhooks(stack, user.me.tenantId);
    expect(events.map((e) => e.type)).toEqual(['journal-entry.posted', 'journal-entry.reversed']);
    expect(events[1]!.payload).toEqual({
      entryId: reversal.body.id,
      legalEntityId: user.me.company.id,
      number: reversal.body.number,
      entryDate: '2025-04-02',
      totalDebit: '30.00',
      totalCredit: '30.00',
      lineCount: 2,
      reversalOf: original.body.id,
    });
    expect(deliveries.map((d) => [d.event_id, d.endpoint_id])).toEqual([
      [events[0]!.id, onlyPosted],
      [events[1]!.id, reversals],
    ]);
  });
});

describe('member.updated and member.removed (updateUser, removeUser)', () => {
  test('when a member is changed, suspended and removed, then one event each in the same commit; a refused change writes none', async () => {
    const admin = await registerWorkspace(stack);
    const subscriber = await endpoint(admin, ['member.updated', 'member.removed']);
    const member = await addMember(stack, admin.me.tenantId, ['ACCOUNTANT']);
    const users = (path: string) => `/api/v1/users/${path}`;
    const view = (await api(stack).get(users(member.membershipId)).set(...bearer(admin.accessToken)).expect(200)).body;
    const put = (body: object) => api(stack).put(users(member.membershipId)).set(...bearer(admin.accessToken)).send(body);

    await put({ displayName: 'Dilnoza', role: 'MANAGER', status: 'ACTIVE', lockVersion: 99 }).expect(409);
    expect((await storedWebhooks(stack, admin.me.tenantId)).events).toEqual([]);

    await put({ displayName: 'Dilnoza', role: 'MANAGER', status: 'ACTIVE', lockVersion: view.lockVersion }).expect(200);
    await put({ displayName: 'Dilnoza', role: 'MANAGER', status: 'SUSPENDED', lockVersion: view.lockVersion + 1 }).expect(200);
    await api(stack).delete(users(member.membershipId)).set(...bearer(admin.accessToken)).send({ lockVersion: view.lockVersion + 2 }).expect(204);

    const { events, deliveries } = await storedWebhooks(stack, admin.me.tenantId);
    const data = { membershipId: member.membershipId, userId: view.userId };
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['member.updated', { ...data, roles: ['MANAGER'], status: 'ACTIVE' }],
      ['member.updated', { ...data, roles: ['MANAGER'], status: 'SUSPENDED' }],
      ['member.removed', { ...data, roles: ['MANAGER'], status: 'REMOVED' }],
    ]);
    for (const e of events) expect(Object.keys(e.payload).sort()).toEqual(fieldsOf('WebhookMemberData'));
    expect(JSON.stringify(events)).not.toContain(member.email);
    expect(deliveries.map((d) => d.endpoint_id)).toEqual([subscriber, subscriber, subscriber]);
    for (const e of events) await outboxStarted(e.id, 1);
  });
});

describe('member.joined (acceptInvitation)', () => {
  test('when an invitation is accepted, then member.joined commits with the membership and the start relay starts its delivery', async () => {
    const admin = await registerWorkspace(stack);
    const subscriber = await endpoint(admin, ['member.joined']);
    const invitee = uniqueEmail('joiner');
    await api(stack).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(admin.accessToken)).send({ email: invitee, roles: ['VIEWER'] }).expect(201);
    await api(stack).post('/api/v1/auth/membership-invitations/accept').set('Host', `${admin.me.company.slug}.${stack.config.baseDomain}`)
      .send({ token: await mailedInvitationToken(stack, invitee), password: 'a long enough new password' }).expect(200);
    const joined = (await api(stack).get('/api/v1/users').query({ q: 'joiner' }).set(...bearer(admin.accessToken)).expect(200)).body.items[0];

    const { events, deliveries } = await storedWebhooks(stack, admin.me.tenantId);
    expect(events.map((e) => [e.type, e.payload])).toEqual([['member.joined', { membershipId: joined.id, userId: joined.userId, roles: ['VIEWER'], status: 'ACTIVE' }]]);
    expect(deliveries.map((d) => d.endpoint_id)).toEqual([subscriber]);
    // Written by the workflow's activity, which has no workflow client: due at once for the relay.
    const [start] = await deliveryStarts(stack, events[0]!.id);
    expect(start).toMatchObject({ workflow_id: deliverWebhookWorkflowId(subscriber, events[0]!.id), due_now: true, tenant_attribute: admin.me.tenantId });
    await outboxStarted(events[0]!.id, 1);
  });
});

describe('invoice.posted (postInvoice)', () => {
  test('when a sales invoice is posted, then invoice.posted commits with the number the posting took in its own round trip, as do the entry and the audit event', async () => {
    const user = await registerWorkspace(stack);
    await saveTaxSettings(stack, user);
    const subscriber = await endpoint(user, ['invoice.posted']);
    const cp = await aCounterparty(stack, user);
    const invoices = invoicesApi(stack, user);
    for (const day of ['2025-07-10', '2025-07-11']) await invoices.post((await invoices.create(salesBody(cp, day)).expect(201)).body.id).expect(200);
    const draft = (await invoices.create(salesBody(cp, '2025-07-12')).expect(201)).body;
    const posted = (await invoices.post(draft.id).expect(200)).body;
    expect(posted.number).toBe('2025-000003');
    const { events, deliveries } = await storedWebhooks(stack, user.me.tenantId);
    const event = events.find((e) => (e.payload as { invoiceId?: string }).invoiceId === draft.id)!;
    expect(event).toMatchObject({ type: 'invoice.posted', payload: { invoiceId: draft.id, kind: 'SALES', number: '2025-000003', date: '2025-07-12', entryId: posted.entryId } });
    expect(Object.keys(event.payload).sort()).toEqual(fieldsOf('WebhookInvoiceData'));
    expect(deliveries.filter((d) => d.event_id === event.id).map((d) => d.endpoint_id)).toEqual([subscriber]);
    const [entry] = await stack.admin.query<{ description: string; reference: string; sequence: number }>(
      `SELECT e.description, e.reference, i.sequence_number AS sequence FROM journal_entries e JOIN invoices i ON i.tenant_id = e.tenant_id AND i.entry_id = e.id
        WHERE e.tenant_id = :t AND e.id = :id`,
      { replacements: { t: user.me.tenantId, id: posted.entryId }, type: QueryTypes.SELECT },
    );
    expect(entry).toEqual({ description: expect.stringMatching(/^Sales invoice 2025-000003, /), reference: '2025-000003', sequence: 3 });
    const audit = await stack.admin.query<{ details: string }>("SELECT details FROM audit_events WHERE tenant_id = :t AND action = 'invoice.posted' AND subject_id = :id", {
      replacements: { t: user.me.tenantId, id: draft.id },
      type: QueryTypes.SELECT,
    });
    expect(audit).toEqual([{ details: expect.stringMatching(/^SALES 2025-000003, total /) }]);
  });
});

describe('period-close.completed and period-close.failed (closePeriod)', () => {
  test('when a close completes, then period-close.completed commits with its outcome', async () => {
    const user = await registerWorkspace(stack);
    const subscriber = await endpoint(user, ['period-close.completed', 'period-close.failed']);
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('2025-05-10', '10.00')).expect(201);
    const close = await ledger.close('2025-05-31').expect(202);
    expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
    const { events, deliveries } = await until(async () => {
      const stored = await storedWebhooks(stack, user.me.tenantId);
      return stored.events.length > 0 ? stored : null;
    }, 10_000, 'the close event');
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['period-close.completed', { closeId: close.body.id, legalEntityId: user.me.company.id, closeDate: '2025-05-31', status: 'COMPLETED', entryCount: 1, reason: null }],
    ]);
    expect(Object.keys(events[0]!.payload).sort()).toEqual(fieldsOf('WebhookPeriodCloseData'));
    expect(deliveries.map((d) => d.endpoint_id)).toEqual([subscriber]);
    await outboxStarted(events[0]!.id, 1);
  });

  test('when a close fails, then period-close.failed carries the reason', async () => {
    const user = await registerWorkspace(stack);
    await endpoint(user, ['period-close.failed']);
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('2025-06-10', '10')).expect(201);
    // An unbalanced ledger, arranged by hand around every check (as closePeriod's own test does): the close fails.
    await withShortLockWaits(stack.admin, async (tx) => {
      await stack.admin.query(`ALTER TABLE journal_entries DISABLE TRIGGER journal_entries_balanced`, { transaction: tx });
      await stack.admin.query(
        `WITH e AS (INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
                     VALUES (:t, gen_random_uuid(), :le, 1000, '2025-06-11', 'broken', gen_random_uuid(), 'x', 5, 5, 2, gen_random_uuid()) RETURNING id, number)
         INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
         SELECT :t, e.id, e.number, n, :le, '2025-06-11', '5110', 5, 0 FROM e, generate_series(1, 2) n`,
        { replacements: { t: user.me.tenantId, le: user.me.company.id }, transaction: tx },
      );
      await stack.admin.query(`ALTER TABLE journal_entries ENABLE TRIGGER journal_entries_balanced`, { transaction: tx });
    });
    const close = await ledger.close('2025-06-30').expect(202);
    const done = await waitForClose(ledger, close.body.id);
    expect(done.status).toBe('FAILED');
    const { events } = await until(async () => {
      const stored = await storedWebhooks(stack, user.me.tenantId);
      return stored.events.length > 0 ? stored : null;
    }, 10_000, 'the close event');
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['period-close.failed', { closeId: close.body.id, legalEntityId: user.me.company.id, closeDate: '2025-06-30', status: 'FAILED', entryCount: null, reason: done.failureReason }],
    ]);
    await outboxStarted(events[0]!.id, 1);
  });
});
