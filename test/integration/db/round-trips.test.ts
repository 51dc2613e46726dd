import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client } from 'pg';
import request from 'supertest';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { simpleEntry } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, salesBody, saveTaxSettings } from '../../helpers/invoices';

// Every statement PostgreSQL receives from the app is one `Client#query` call, i.e. one round trip. The
// calls are counted per request: the app runs inside an async context of its own, so the worker's and the
// start relay's statements (same pool, same process) are not counted.
let stack: TestStack;
let alice: Registered;
const requestContext = new AsyncLocalStorage<string[]>();
let counted: (req: IncomingMessage, res: ServerResponse) => void;

beforeAll(async () => {
  stack = await startTestStack();
  alice = await registerWorkspace(stack);
  const query = Client.prototype.query;
  jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
    requestContext.getStore()?.push(text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof Client.prototype.query);
  counted = (req, res) => requestContext.run([], () => stack.app(req, res));
});
afterAll(async () => {
  jest.restoreAllMocks();
  await stack.stop();
});

/** The statements `send` sent to PostgreSQL (one entry per round trip), measured on its second run (pool warm). */
async function roundTrips(send: (app: typeof counted) => Promise<unknown>): Promise<string[]> {
  await send(counted);
  let sent: string[] = [];
  await send((req, res) => {
    sent = [];
    requestContext.run(sent, () => stack.app(req, res));
  });
  return sent.map((text) => text.replace(/\s+/g, ' ').trim());
}

describe('GET /api/v1/me (getCurrentUser)', () => {
  test('when the caller reads themselves, then PostgreSQL sees two round trips: the principal and one read-only tenant batch', async () => {
    const sent = await roundTrips((app) => request(app).get('/api/v1/me').set(...bearer(alice.accessToken)).expect(200));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/app_load_principal/);
    expect(sent[1]).toMatch(/^SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY; SELECT set_config\('app\.tenant_id', '[0-9a-f-]{36}', true\); SELECT le\.id, le\.name/);
  });
});

describe('GET /api/v1/accounting-settings/{legalEntityId}/accounts (listCompanyAccounts)', () => {
  test('when a page is read, then PostgreSQL sees two round trips: the principal and one batch of the company check and the page', async () => {
    const path = `/api/v1/accounting-settings/${alice.me.company.id}/accounts`;
    const sent = await roundTrips((app) => request(app).get(path).query({ size: 20 }).set(...bearer(alice.accessToken)).expect(200));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/app_load_principal/);
    expect(sent[1]).toMatch(/set_config\('app\.tenant_id'.*SELECT archived_at IS NOT NULL AS archived FROM legal_entities.*app_company_chart_page\(/);
  });
});

describe('POST /api/v1/ledger/{legalEntityId}/entries (postJournalEntry)', () => {
  test('when an entry is posted, then PostgreSQL sees four round trips: the principal, the opening with the posting context, the audit event with the writes, and COMMIT', async () => {
    const path = `/api/v1/ledger/${alice.me.company.id}/entries`;
    const sent = await roundTrips((app) => request(app).post(path).set(...bearer(alice.accessToken)).send(simpleEntry('2025-02-03', '10')).expect(201));
    expect(sent).toHaveLength(4);
    expect(sent[0]).toMatch(/app_load_principal/);
    expect(sent[1]).toMatch(/^START TRANSACTION; SELECT set_config\('app\.tenant_id', '[0-9a-f-]{36}', true\); SELECT \(SELECT archived_at IS NOT NULL FROM legal_entities/);
    expect(sent[2]).toMatch(/^\/\* batch \*\/ INSERT INTO audit_events .*; WITH counter AS/);
    expect(sent[3]).toMatch(/^COMMIT/);
  });

  test('when an endpoint of the workspace subscribes to journal-entry.posted, then the posting commits in the same four round trips (its webhook event travels in the batch) and then starts the delivery', async () => {
    const bob = await registerWorkspace(stack);
    await request(stack.app).post('/api/v1/webhooks/endpoints').set(...bearer(bob.accessToken))
      .send({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['journal-entry.posted'] }).expect(201);
    const path = `/api/v1/ledger/${bob.me.company.id}/entries`;
    const sent = await roundTrips((app) => request(app).post(path).set(...bearer(bob.accessToken)).send(simpleEntry('2025-02-03', '10')).expect(201));
    expect(sent[2]).toMatch(/^\/\* batch \*\/ INSERT INTO audit_events .*; WITH counter AS .*; WITH endpoints AS .* INSERT INTO webhook_events .* INSERT INTO workflow_starts/);
    expect(sent[3]).toMatch(/^COMMIT/);
    // After the commit: the outbox row of its one delivery is settled (claimed, started, marked) in a transaction of its own.
    expect(sent.slice(4).every((text) => /workflow_starts|^START TRANSACTION|^COMMIT/.test(text))).toBe(true);
    expect(sent.slice(4).filter((text) => /FROM workflow_starts WHERE started_at IS NULL AND id = /.test(text))).toHaveLength(1);
  });
});

describe('POST /api/v1/invoices/{legalEntityId}/{invoiceId}/posting (postInvoice)', () => {
  test('when a sales invoice is posted, then PostgreSQL sees four round trips, as a journal entry: the principal, the opening with the invoice held, its lines and the posting checks read from it, one batch with the number, the entry and the invoice, and COMMIT', async () => {
    const carol = await registerWorkspace(stack);
    await saveTaxSettings(stack, carol);
    const customer = await aCounterparty(stack, carol);
    const invoices = invoicesApi(stack, carol);
    const sent = await roundTrips(async (app) => {
      const draft = (await invoices.create(salesBody(customer, '2025-02-03')).expect(201)).body as { id: string };
      await request(app).post(`/api/v1/invoices/${carol.me.company.id}/${draft.id}/posting`).set(...bearer(carol.accessToken)).expect(200);
    });
    expect(sent).toHaveLength(4);
    expect(sent[0]).toMatch(/app_load_principal/);
    expect(sent[1]).toMatch(
      /^START TRANSACTION; SELECT set_config\('app\.tenant_id', '[0-9a-f-]{36}', true\); SELECT archived_at IS NOT NULL AS archived FROM legal_entities .* FOR SHARE; SELECT .* FOR UPDATE OF i; SELECT .* FROM invoice_lines .*; SELECT EXISTS \(SELECT 1 FROM webhook_endpoints .*\) AS subscribed; SELECT \* FROM app_invoice_posting_context\('[0-9a-f-]{36}', '[0-9a-f-]{36}', '[0-9a-f-]{36}', '[0-9a-f-]{36}', CAST\('\{[0-9,]+\}' AS text\[\]\), 'UZS'\)$/,
    );
    // The number is taken first in the entry's batch, just before the ledger's row; no marker is left in it. Nobody
    // subscribed to invoice.posted: no webhook statement; the invoice's update answers what the answer needs (no read back).
    // The lines' UZS amounts go first, before the invoice counter and the ledger row are taken and held to commit.
    // The invoice's own statements are functions (planned once per connection).
    expect(sent[2]).toMatch(
      /^\/\* batch \*\/ SELECT app_set_invoice_line_uzs\(.*\); WITH taken AS \( INSERT INTO document_counters .*; INSERT INTO audit_events .*; WITH counter AS .*; SELECT \* FROM app_mark_invoice_posted\(.*\)$/,
    );
    expect(sent[2]).not.toMatch(/@late:|webhook_events|FROM invoice_lines WHERE|UPDATE invoices/);
    expect(sent[3]).toMatch(/^COMMIT/);
  });
});
