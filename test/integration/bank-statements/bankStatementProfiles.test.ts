import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { createBankAccount } from '../../helpers/bank-accounts';
import { bankStatementsApi, storedLineCount, waitForImport } from '../../helpers/bank-statements';
import { closing, statement } from '../../unit/bank-statements/fixture';
import { csvProfile, renderCsv, renderOneC, renderXlsx, xlsxProfile, type Statement } from '../../unit/bank-statements/render';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

function profilesApi(who: Registered) {
  const base = `/api/v1/bank-statement-profiles/${who.me.company.id}`;
  const auth = bearer(who.accessToken);
  return {
    list: () => api(stack).get(base).set(...auth),
    create: (body: Record<string, unknown>) => api(stack).post(base).set(...auth).send(body),
    update: (id: string, body: Record<string, unknown>) => api(stack).put(`${base}/${id}`).set(...auth).send(body),
    remove: (id: string) => api(stack).delete(`${base}/${id}`).set(...auth),
  };
}

async function aCompany() {
  const who = await registerWorkspace(stack);
  const account = (await createBankAccount(stack, who, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201)).body;
  const statements = bankStatementsApi(stack, who, account.id);
  const importAs = (file: Buffer, contentType: string, profileId?: string) =>
    api(stack)
      .post(`${statements.base}/statements`)
      .query(profileId ? { profileId } : {})
      .set(...bearer(who.accessToken))
      .set('Content-Type', contentType)
      .send(file);
  return { who, account, statements, importAs, profiles: profilesApi(who) };
}

describe('bank statement column profiles', () => {
  test('create, list by name, replace at its version, delete; a profile that cannot be read with is 400 and stored nowhere', async () => {
    const c = await aCompany();
    const csv = (await c.profiles.create({ name: 'Kapitalbank CSV', profile: csvProfile }).expect(201)).body;
    expect(csv).toMatchObject({ name: 'Kapitalbank CSV', profile: csvProfile, version: 1 });
    await c.profiles.create({ name: 'Hamkorbank XLSX', profile: xlsxProfile }).expect(201);
    expect((await c.profiles.list().expect(200)).body.items.map((p: { name: string }) => p.name)).toEqual(['Hamkorbank XLSX', 'Kapitalbank CSV']);
    expect((await c.profiles.update(csv.id, { name: 'Kapitalbank', profile: { ...csvProfile, headerRow: 5 }, expectedVersion: 1 }).expect(200)).body).toMatchObject({ version: 2 });
    expect((await c.profiles.update(csv.id, { name: 'Kapitalbank', profile: csvProfile, expectedVersion: 1 }).expect(409)).body.type).toBe('/problems/stale-version');
    await c.profiles.remove(csv.id).expect(204);
    await c.profiles.remove(csv.id).expect(404);

    const both = { ...csvProfile, columns: { ...csvProfile.columns, amount: 'Сумма' } };
    expect((await c.profiles.create({ name: 'Both', profile: both }).expect(400)).body.errors[0].path).toBe('/body/profile');
    await c.profiles.create({ name: 'Unknown key', profile: { ...csvProfile, macros: true } }).expect(400);
    await c.profiles.create({ name: 'Bad cell', profile: { ...csvProfile, statement: { ...csvProfile.statement, openingBalance: { row: 0, column: 1 } } } }).expect(400);
    expect((await c.profiles.list().expect(200)).body.totalElements).toBe(1);
  });

  test('a CSV and an XLSX export read with their profiles give the lines of the same statement in 1C text: nothing new after the first', async () => {
    const c = await aCompany();
    const csv = (await c.profiles.create({ name: 'CSV', profile: csvProfile }).expect(201)).body;
    const xlsx = (await c.profiles.create({ name: 'XLSX', profile: xlsxProfile }).expect(201)).body;
    const first = await c.importAs(renderCsv(statement), 'text/csv', csv.id).expect(202);
    expect(await waitForImport(c.statements, first.body.id)).toMatchObject({ status: 'COMPLETED', format: 'csv', counts: { read: 4, new: 4 } });
    const sheet = await c.importAs(await renderXlsx(statement), XLSX, xlsx.id).expect(202);
    expect(await waitForImport(c.statements, sheet.body.id)).toMatchObject({ status: 'COMPLETED', format: 'xlsx', counts: { read: 4, new: 0, duplicate: 4 } });
    const text = await c.importAs(renderOneC(statement), 'text/plain').expect(202);
    expect(await waitForImport(c.statements, text.body.id)).toMatchObject({ status: 'COMPLETED', format: '1c', counts: { read: 4, new: 0, duplicate: 4 } });
    expect(await storedLineCount(stack, c.who)).toBe(4);
  });

  test('text that looks like a formula is stored as the bank wrote it, and a sheet\'s formula cell is its text, never evaluated', async () => {
    const c = await aCompany();
    const csv = (await c.profiles.create({ name: 'CSV', profile: csvProfile }).expect(201)).body;
    const xlsx = (await c.profiles.create({ name: 'XLSX', profile: xlsxProfile }).expect(201)).body;
    const tricky = [
      { date: '2026-11-10', direction: 'IN' as const, amount: '10.00', counterpartyName: '=HYPERLINK("http://evil.example";"x")', purpose: '@SUM(1+1)' },
      { date: '2026-11-11', direction: 'OUT' as const, amount: '3.00', counterpartyName: '+cmd', purpose: '-2+3' },
    ];
    const file: Statement = { ...statement, lines: tricky, closingBalance: closing(statement.openingBalance, tricky) };
    const done = await waitForImport(c.statements, (await c.importAs(renderCsv(file), 'text/csv', csv.id).expect(202)).body.id);
    expect(done.status).toBe('COMPLETED');
    const lines = (await c.statements.lines().expect(200)).body.items;
    expect(lines.map((l: { counterpartyName: string; purpose: string }) => [l.counterpartyName, l.purpose])).toEqual(tricky.map((l) => [l.counterpartyName, l.purpose]));

    const formula = { date: '2026-11-12', direction: 'IN' as const, amount: '7.00', purpose: 'placeholder' };
    const sheetFile: Statement = { ...statement, periodFrom: '2026-11-12', lines: [formula], closingBalance: closing(statement.openingBalance, [formula]) };
    const sheet = await renderXlsx(sheetFile, (ws) => {
      // The purpose cell of the one line (row 5, column 10) holds a formula instead of text.
      ws.getCell(5, 10).value = { formula: 'CONCATENATE("a";"b")', result: 'ab' };
    });
    const sheetDone = await waitForImport(c.statements, (await c.importAs(sheet, XLSX, xlsx.id).expect(202)).body.id);
    expect(sheetDone.status).toBe('COMPLETED');
    const stored = (await c.statements.lines({ from: '2026-11-12' }).expect(200)).body.items[0];
    expect(stored.purpose).toBe('=CONCATENATE("a";"b")');
  });

  test('a CSV or XLSX without its profile, a profile for a text file, another company\'s profile or none at all: 400, nothing stored', async () => {
    const c = await aCompany();
    const other = await aCompany();
    const theirs = (await other.profiles.create({ name: 'Theirs', profile: csvProfile }).expect(201)).body;
    const ours = (await c.profiles.create({ name: 'Ours', profile: csvProfile }).expect(201)).body;
    const path = async (res: Promise<{ body: { errors: Array<{ path: string }> } }>) => (await res).body.errors[0]!.path;
    expect(await path(c.importAs(renderCsv(statement), 'text/csv').expect(400))).toBe('/query/profileId');
    expect(await path(c.importAs(await renderXlsx(statement), XLSX).expect(400))).toBe('/query/profileId');
    expect(await path(c.importAs(renderOneC(statement), 'text/plain', ours.id).expect(400))).toBe('/query/profileId');
    expect(await path(c.importAs(renderCsv(statement), 'text/csv', theirs.id).expect(400))).toBe('/query/profileId');
    await c.importAs(renderCsv(statement), 'text/csv', 'not-a-uuid').expect(400);
    expect(await storedLineCount(stack, c.who)).toBe(0);
  });
});
