import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import Decimal from 'decimal.js';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';
import { createBankAccount, updateBankAccount } from '../../helpers/bank-accounts';
import { aCounterparty, invoicesApi, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { bankStatementsApi, storedLineCount, waitForImport } from '../../helpers/bank-statements';
import { storedWebhooks, webhooksApi } from '../../helpers/webhook-endpoints';
import { closing, statement } from '../../unit/bank-statements/fixture';
import { renderCamt, renderMt940, renderOneC, type Statement } from '../../unit/bank-statements/render';

let stack: TestStack;
// The API spools a statement's body to the temporary directory: this file's own, to see what is left in it.
const outerTmp = process.env.TMPDIR;
const spoolDir = mkdtempSync(path.join(tmpdir(), 'import-spool-'));
beforeAll(async () => {
  process.env.TMPDIR = spoolDir;
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
  if (outerTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outerTmp;
  rmSync(spoolDir, { recursive: true, force: true });
});

/** A workspace with the statement's bank account and the customer who pays the statement's first line. */
async function aCompany() {
  const who = await registerWorkspace(stack);
  await saveTaxSettings(stack, who);
  const account = (await createBankAccount(stack, who, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201)).body;
  const customer = await aCounterparty(stack, who, { name: 'Тошкент Савдо', tin: statement.lines[0]!.counterpartyTin });
  return { who, account, customer, statements: bankStatementsApi(stack, who, account.id), invoices: invoicesApi(stack, who) };
}

/** A posted sales invoice of `gross` UZS (exempt, so net = gross) dated `date`. */
async function postedSale(c: Awaited<ReturnType<typeof aCompany>>, gross: string, date = '2026-11-01') {
  const draft = (await c.invoices.create({ ...salesBody(c.customer, date), lines: [{ description: 'Goods', quantity: '1', unitPrice: gross, vatRate: null }] }).expect(201)).body;
  return (await c.invoices.post(draft.id).expect(200)).body;
}

async function imported(c: Awaited<ReturnType<typeof aCompany>>, file: Buffer, contentType = 'text/plain') {
  const res = await c.statements.import(file, contentType).expect(202);
  expect(res.body).toMatchObject({ status: 'RUNNING', bankAccountId: c.account.id, byteSize: file.length, contentType });
  return waitForImport(c.statements, res.body.id);
}

const events = async (who: Registered, prefix: string) =>
  stack.admin.query<{ action: string; details: string }>(`SELECT action, details FROM audit_events WHERE tenant_id = :t AND action LIKE :p ORDER BY occurred_at, id`, {
    replacements: { t: who.me.tenantId, p: `${prefix}%` },
    type: QueryTypes.SELECT,
  });

describe('importBankStatement (POST /api/v1/bank-accounts/{legalEntityId}/{bankAccountId}/statements)', () => {
  test('when a Windows-1251 1C statement is imported, then its lines are stored with their Cyrillic purposes, identical rows both kept, and a line whose TIN names a customer with one open invoice of its amount is proposed', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '4500000.00');
    const done = await imported(c, renderOneC(statement, { codePage: 'windows-1251' }));
    expect(done).toMatchObject({
      status: 'COMPLETED',
      format: '1c',
      statementCount: 1,
      periodFrom: '2026-11-01',
      periodTo: '2026-11-30',
      openingBalance: '1250000.00',
      closingBalance: statement.closingBalance,
      counts: { read: 4, new: 4, duplicate: 0, matched: 0, proposed: 1, unmatched: 3 },
      problem: null,
    });
    expect(done.sha256).toMatch(/^[0-9a-f]{64}$/);
    const lines = (await c.statements.lines().expect(200)).body;
    expect(lines.totalElements).toBe(4);
    expect(lines.items.map((l: Record<string, unknown>) => [l.date, l.direction, l.amount, l.status])).toEqual([
      ['2026-11-03', 'IN', '4500000.00', 'PROPOSED'],
      ['2026-11-05', 'OUT', '1200000.50', 'UNMATCHED'],
      ['2026-11-20', 'OUT', '5000.00', 'UNMATCHED'],
      ['2026-11-20', 'OUT', '5000.00', 'UNMATCHED'],
    ]);
    expect(lines.items[0]).toMatchObject({
      currency: 'UZS',
      counterpartyTin: '302456789',
      purpose: statement.lines[0]!.purpose,
      proposal: { type: 'SETTLE_INVOICES', counterpartyId: c.customer, allocations: [{ invoiceId: invoice.id, invoiceNumber: invoice.number, amount: '4500000.00' }] },
      paymentId: null,
    });
    expect(lines.items[1].purpose).toBe('Аренда офиса за ноябрь 2026 года по договору № 5 от 10.01.2025');
    expect((await c.statements.lines({ status: 'PROPOSED' }).expect(200)).body.items).toHaveLength(1);
    expect((await events(c.who, 'bank-statement.')).map((e) => e.action)).toEqual(['bank-statement.import-requested', 'bank-statement.imported']);
  });

  test('when an endpoint subscribes to bank-statement.imported, then a completed import sends it once with its counts; a refused file sends none', async () => {
    const c = await aCompany();
    await webhooksApi(stack, c.who).create({ url: 'http://127.0.0.1:9/bank', eventTypes: ['bank-statement.imported'] }).expect(201);
    const done = await imported(c, renderOneC(statement));
    await imported(c, renderOneC({ ...statement, closingBalance: '1.00' }));
    await imported(c, renderOneC(statement).subarray(0, 100));
    const { events, deliveries } = await storedWebhooks(stack, c.who.me.tenantId);
    expect(events.map((e) => e.type)).toEqual(['bank-statement.imported']);
    expect(events[0]!.payload).toEqual({ importId: done.id, legalEntityId: c.who.me.company.id, bankAccountId: c.account.id, periodFrom: '2026-11-01', periodTo: '2026-11-30', counts: done.counts });
    expect(deliveries).toHaveLength(1);
  });

  test('when the same file is sent again, then it answers the first import (200) and adds nothing; the same statement as MT940 and as camt.053 adds no line either', async () => {
    const c = await aCompany();
    const file = renderOneC(statement);
    const first = await imported(c, file);
    const again = await c.statements.import(file).expect(200);
    expect(again.body).toEqual(first);
    const mt940 = await imported(c, renderMt940(statement));
    expect(mt940).toMatchObject({ status: 'COMPLETED', format: 'mt940', counts: { read: 4, new: 0, duplicate: 4 } });
    const camt = await imported(c, renderCamt(statement), 'application/xml');
    expect(camt).toMatchObject({ status: 'COMPLETED', format: 'camt.053', counts: { read: 4, new: 0, duplicate: 4 } });
    expect(await storedLineCount(stack, c.who)).toBe(4);
  });

  test('when two statements overlap, then the account has their union: the shared lines once, the new ones added', async () => {
    const c = await aCompany();
    await imported(c, renderOneC(statement));
    const later = [
      ...statement.lines.slice(2),
      { date: '2026-11-25', direction: 'IN' as const, amount: '750000.00', counterpartyName: 'ООО «Новый»', counterpartyAccount: '20208000500111222003', purpose: 'Предоплата' },
    ];
    const overlapping: Statement = { ...statement, periodFrom: '2026-11-20', openingBalance: '4545000.00', closingBalance: closing('4545000.00', later), lines: later };
    const done = await imported(c, renderOneC(overlapping));
    expect(done.counts).toEqual({ read: 3, new: 1, duplicate: 2, matched: 0, proposed: 0, unmatched: 1 });
    const lines = (await c.statements.lines().expect(200)).body.items;
    expect(lines.map((l: { amount: string }) => l.amount)).toEqual(['4500000.00', '1200000.50', '5000.00', '5000.00', '750000.00']);
    expect((await c.statements.lines({ importId: done.id }).expect(200)).body.items.map((l: { amount: string }) => l.amount)).toEqual(['750000.00']);
  });

  test('when two lines could pay one invoice, then only the earlier is proposed it, in this import or a later one', async () => {
    const c = await aCompany();
    const invoice = await postedSale(c, '4500000.00');
    const first = statement.lines[0]!;
    const twice = [first, { ...first, date: '2026-11-04', purpose: 'Повторная оплата' }];
    await imported(c, renderOneC({ ...statement, lines: twice, closingBalance: closing(statement.openingBalance, twice) }));
    const later = [{ ...first, date: '2026-11-06', purpose: 'Ещё одна оплата' }];
    await imported(c, renderOneC({ ...statement, periodFrom: '2026-11-06', openingBalance: '10250000.00', lines: later, closingBalance: closing('10250000.00', later) }));
    const lines = (await c.statements.lines().expect(200)).body.items;
    expect(lines.map((l: { date: string; status: string; proposal: { allocations: Array<{ invoiceId: string }> } | null }) => [l.date, l.status, l.proposal?.allocations[0]?.invoiceId ?? null])).toEqual([
      ['2026-11-03', 'PROPOSED', invoice.id],
      ['2026-11-04', 'UNMATCHED', null],
      ['2026-11-06', 'UNMATCHED', null],
    ]);
  });

  test('when a statement does not add up, then the import ends FAILED statement-unbalanced with the difference and no line of it is stored', async () => {
    const c = await aCompany();
    const done = await imported(c, renderOneC({ ...statement, closingBalance: '1.00' }));
    expect(done).toMatchObject({ status: 'FAILED', problem: { type: 'statement-unbalanced' }, counts: { read: 0, new: 0 } });
    // What the lines make of the opening balance, less the closing balance the file claims.
    expect(done.problem.difference).toBe(new Decimal(statement.closingBalance).minus('1.00').toFixed(2));
    expect(await storedLineCount(stack, c.who)).toBe(0);
    expect((await events(c.who, 'bank-statement.')).map((e) => e.action)).toEqual(['bank-statement.import-requested', 'bank-statement.import-failed']);
  });

  test('when the file is of another account, truncated, in a code page it does not declare, or XML with an external entity or an entity bomb, then the import ends FAILED and nothing is stored', async () => {
    const c = await aCompany();
    const other = await imported(c, renderOneC({ ...statement, accountNumber: '20208000900999999001' }));
    expect(other).toMatchObject({ status: 'FAILED', problem: { type: 'statement-account-mismatch' } });
    expect(other.problem.detail).toContain('20208000900999999001');
    const whole = renderOneC(statement);
    const truncated = await imported(c, whole.subarray(0, Math.floor(whole.length / 2)));
    expect(truncated).toMatchObject({ status: 'FAILED', problem: { type: 'statement-unreadable' } });
    const mislabelled = await imported(c, renderOneC(statement, { codePage: 'windows-1251', declared: 'UTF-8' }));
    expect(mislabelled).toMatchObject({ status: 'FAILED', problem: { type: 'statement-unreadable' } });
    const entity = Buffer.from(
      renderCamt(statement)
        .toString('utf8')
        .replace('<?xml version="1.0" encoding="UTF-8"?>\n', '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE Document [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n')
        .replace('<Ustrd>', '<Ustrd>&secret;'),
    );
    const xml = await imported(c, entity, 'application/xml');
    expect(xml).toMatchObject({ status: 'FAILED', problem: { type: 'statement-unreadable' } });
    expect(JSON.stringify(xml)).not.toContain('root:');
    // An entity expanding to a billion others: refused at its DTD, nothing expanded.
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const bomb = Buffer.from(`<?xml version="1.0"?>\n<!DOCTYPE Document [<!ENTITY lol0 "lol">${levels}]>\n<Document>&lol9;</Document>\n`);
    expect(await imported(c, bomb, 'application/xml')).toMatchObject({ status: 'FAILED', problem: { type: 'statement-unreadable' } });
    expect(await storedLineCount(stack, c.who)).toBe(0);
  });

  test('bad requests change nothing: a 21 MB body (413), a JSON body (415), an empty one (400), another company\'s account (404), an archived account (409)', async () => {
    const c = await aCompany();
    const big = Buffer.alloc(21 * 1024 * 1024, 0x41);
    const tooLarge = await c.statements.import(big).expect(413);
    expect(tooLarge.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await c.statements.import(Buffer.from('{"a":1}'), 'application/json').expect(415)).body.type).toBe('/problems/unsupported-media-type');
    expect((await c.statements.import(Buffer.alloc(0)).expect(400)).body.type).toBe('/problems/validation');
    const stranger = await aCompany();
    await bankStatementsApi(stack, c.who, stranger.account.id).import(renderOneC(statement)).expect(404);
    await bankStatementsApi(stack, c.who, stranger.account.id).lines().expect(404);
    await updateBankAccount(stack, c.who, c.account.id, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS', archived: true, expectedVersion: 1 }).expect(200);
    expect((await c.statements.import(renderOneC(statement)).expect(409)).body.type).toBe('/problems/bank-account-archived');
    const imports = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM bank_statement_imports WHERE tenant_id = :t', { replacements: { t: c.who.me.tenantId }, type: QueryTypes.SELECT });
    expect(imports[0]!.n).toBe(0);
  });

  test('a body is written to disk as it arrives, never held whole: sent without a length and past 20 MiB it is refused 413, and no spooled file outlives its request', async () => {
    const c = await aCompany();
    const server = createServer(stack.app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await new Promise<{ status: number; type: string }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method: 'POST', path: `${c.statements.base}/statements`, headers: { authorization: `Bearer ${c.who.accessToken}`, 'content-type': 'text/plain' } },
          (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, type: String(JSON.parse(body).type) }));
          },
        );
        req.on('error', reject);
        // Chunked, so the limit is found while the body arrives, not from a declared length.
        const chunk = Buffer.alloc(1024 * 1024, 0x41);
        for (let i = 0; i < 21; i += 1) req.write(chunk);
        req.end();
      });
      expect(answer).toEqual({ status: 413, type: '/problems/payload-too-large' });
    } finally {
      server.close();
    }
    const done = await imported(c, renderOneC(statement));
    expect(done.status).toBe('COMPLETED');
    expect(readdirSync(spoolDir)).toEqual([]);
  });
});
