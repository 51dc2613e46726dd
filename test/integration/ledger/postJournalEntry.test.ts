import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { entryBody, ledgerApi, simpleEntry } from '../../helpers/ledger';
import { NAS21_CHART_OF_ACCOUNTS } from '../../../db/seeds/2026.11.21T08.00.00.nas21-chart-of-accounts';

let stack: TestStack;
let alice: Registered;
let ledger: ReturnType<typeof ledgerApi>;
beforeAll(async () => {
  stack = await startTestStack();
  alice = await registerWorkspace(stack);
  ledger = ledgerApi(stack, alice);
});
afterAll(async () => {
  await stack.stop();
});

/** A UZS line has none of the currency fields; a line without a counterparty reads counterpartyId null. */
const UZS_LINE = { counterpartyId: null, currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null };

describe('postJournalEntry: POST /api/v1/ledger/{legalEntityId}/entries', () => {
  test('when the entry balances, then 201 with numbered lines, exact totals and the caller as poster', async () => {
    const body = entryBody('2025-01-10', [
      { accountCode: '5110', debit: '1250.5' },
      { accountCode: '6410', credit: '250.25' },
      { accountCode: '9010', credit: '1000.25', memo: 'sale' },
    ], { reference: 'INV-1' });
    const res = await ledger.post(body).expect(201);
    expect(res.body).toMatchObject({
      entryDate: '2025-01-10',
      description: body.description,
      reference: 'INV-1',
      totalDebit: '1250.50',
      totalCredit: '1250.50',
      reversalOf: null,
      reversedBy: null,
      postedByMembershipId: alice.me.membershipId,
    });
    expect(res.body.lines).toEqual([
      { lineNo: 1, accountCode: '5110', subaccountId: null, debit: '1250.50', credit: '0.00', memo: null, ...UZS_LINE },
      { lineNo: 2, accountCode: '6410', subaccountId: null, debit: '0.00', credit: '250.25', memo: null, ...UZS_LINE },
      { lineNo: 3, accountCode: '9010', subaccountId: null, debit: '0.00', credit: '1000.25', memo: 'sale', ...UZS_LINE },
    ]);
    expect(res.headers.location).toBe(`${ledger.base}/entries/${res.body.id}`);
    const fetched = await ledger.get(res.body.id).expect(200);
    expect(fetched.body).toEqual(res.body);
  });

  test('"exact decimal amounts": 0.1 + 0.2 against 0.3 balances, with no float anywhere', async () => {
    const res = await ledger
      .post(entryBody('2025-01-11', [{ accountCode: '5110', debit: '0.1' }, { accountCode: '5110', debit: '0.2' }, { accountCode: '9010', credit: '0.3' }]))
      .expect(201);
    expect(res.body.totalDebit).toBe('0.30');
    const big = '9999999999999999.99';
    const huge = await ledger.post(simpleEntry('2025-01-11', big)).expect(201);
    expect(huge.body.totalCredit).toBe(big);
  });

  test.each([
    ['debits differ from credits by one tiyin', [{ accountCode: '5110', debit: '100.00' }, { accountCode: '9010', credit: '99.99' }], 'entry-unbalanced'],
    ['a line has both sides', [{ accountCode: '5110', debit: '1', credit: '1' }, { accountCode: '9010', credit: '0' }], 'validation'],
    ['a line has neither side', [{ accountCode: '5110', debit: '0' }, { accountCode: '9010', credit: '0' }], 'validation'],
    ['an amount has three decimals', [{ accountCode: '5110', debit: '1.005' }, { accountCode: '9010', credit: '1.005' }], 'validation'],
    ['an amount is negative', [{ accountCode: '5110', debit: '-5' }, { accountCode: '9010', credit: '-5' }], 'validation'],
    ['only one line', [{ accountCode: '5110', debit: '5' }], 'validation'],
    ['an account code is not in the chart', [{ accountCode: '5111', debit: '5' }, { accountCode: '9010', credit: '5' }], 'unknown-account'],
  ])('when %s, then 400 %s and nothing is posted', async (_name, lines, type) => {
    const before = await ledger.list().expect(200);
    const res = await ledger.post(entryBody('2025-01-12', lines)).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.type).toBe(`/problems/${type}`);
    const after = await ledger.list().expect(200);
    expect(after.body.totalElements).toBe(before.body.totalElements);
  });

  test('when amounts are JSON numbers instead of decimal strings, then 400', async () => {
    const body = { ...simpleEntry('2025-01-12', '5'), lines: [{ accountCode: '5110', debit: 5, credit: '0' }, { accountCode: '9010', debit: '0', credit: 5 }] };
    await ledger.post(body).expect(400);
  });

  test('500 lines are accepted; 501 are not', async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? { accountCode: '5110', debit: '1.01' } : { accountCode: '9010', credit: '1.01' }));
    const ok = await ledger.post(entryBody('2025-01-13', lines(500))).expect(201);
    expect(ok.body.lines).toHaveLength(500);
    expect(ok.body.totalDebit).toBe('252.50');
    await ledger.post(entryBody('2025-01-13', [...lines(500), { accountCode: '5110', debit: '1' }])).expect(400);
  });

  test('"against enabled-or-disabled accounts and subaccounts of the same company"', async () => {
    const settings = `/api/v1/accounting-settings/${alice.me.company.id}`;
    await api(stack).put(`${settings}/accounts/5010`).set(...bearer(alice.accessToken)).send({ enabled: false, expectedVersion: 0, name: 'Cash' }).expect(200);
    const sub = await api(stack)
      .post(`${settings}/accounts/5110/subaccounts`)
      .set(...bearer(alice.accessToken))
      .send({ code: 'BANK-1', name: 'Main bank', enabled: false })
      .expect(201);
    const custom = await api(stack)
      .post(`${settings}/accounts`)
      .set(...bearer(alice.accessToken))
      .send({ code: '5999', name: 'Custom cash', type: 'ASSET', enabled: true })
      .expect(201);
    expect(custom.body.code).toBe('5999');
    const res = await ledger
      .post(entryBody('2025-01-14', [
        { accountCode: '5010', debit: '10' },
        { accountCode: '5110', subaccountId: sub.body.id, debit: '20' },
        { accountCode: '5999', debit: '5' },
        { accountCode: '9010', credit: '35' },
      ]))
      .expect(201);
    expect(res.body.lines[1].subaccountId).toBe(sub.body.id);
    // The subaccount under another account, or another company's, is 400.
    const wrongParent = await ledger.post(entryBody('2025-01-14', [{ accountCode: '5010', subaccountId: sub.body.id, debit: '1' }, { accountCode: '9010', credit: '1' }])).expect(400);
    expect(wrongParent.body.type).toBe('/problems/unknown-account');
    const bob = await registerWorkspace(stack);
    const foreign = await ledgerApi(stack, bob).post(entryBody('2025-01-14', [{ accountCode: '5110', subaccountId: sub.body.id, debit: '1' }, { accountCode: '9010', credit: '1' }])).expect(400);
    expect(foreign.body.type).toBe('/problems/unknown-account');
    const bobsCustom = await ledgerApi(stack, bob).post(simpleEntry('2025-01-14', '1', '5999')).expect(400);
    expect(bobsCustom.body.type).toBe('/problems/unknown-account');
  });

  test('"idempotent per requestId": the same request twice returns the same entry; another body with it → 409', async () => {
    const body = simpleEntry('2025-01-15', '42.00');
    const first = await ledger.post(body).expect(201);
    const again = await ledger.post(body).expect(201);
    expect(again.body).toEqual(first.body);
    // "42" and "42.00" are the same amount, so the same content.
    await ledger.post({ ...body, lines: body.lines.map((l) => ({ ...l, debit: l.debit === '0' ? '0.00' : '42' })) }).expect(201);
    const other = await ledger.post({ ...body, description: 'something else' }).expect(409);
    expect(other.body.type).toBe('/problems/request-id-reused');
    const concurrent = simpleEntry('2025-01-15', '7.00');
    const results = await Promise.all(Array.from({ length: 10 }, () => ledger.post(concurrent)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });

  test('"gapless entry numbers per legal entity under concurrency"', async () => {
    const bob = await registerWorkspace(stack);
    const bobLedger = ledgerApi(stack, bob);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => bobLedger.post(i % 5 === 0 ? simpleEntry('2025-02-01', '1.00', '5111') : simpleEntry('2025-02-01', `${i}.00`))),
    );
    const posted = results.filter((r) => r.status === 201).map((r) => r.body.number as number).sort((a, b) => a - b);
    expect(results.filter((r) => r.status === 400)).toHaveLength(8);
    expect(posted).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
  });

  test('the audit event commits with the entry and names it', async () => {
    const res = await ledger.post(simpleEntry('2025-01-16', '3.00')).expect(201);
    const events = await stack.admin.query<{ action: string; subject_type: string; correlation_id: string }>(
      'SELECT action, subject_type, correlation_id FROM audit_events WHERE tenant_id = :tenantId AND subject_id = :id',
      { replacements: { tenantId: alice.me.tenantId, id: res.body.id }, type: QueryTypes.SELECT },
    );
    expect(events).toEqual([{ action: 'ledger.entry.posted', subject_type: 'JOURNAL_ENTRY', correlation_id: res.body.correlationId }]);
  });

  test('when the company is another tenant\'s, then 404', async () => {
    const bob = await registerWorkspace(stack);
    const res = await api(stack).post(`/api/v1/ledger/${bob.me.company.id}/entries`).set(...bearer(alice.accessToken)).send(simpleEntry('2025-01-17', '1')).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    await api(stack).get(`/api/v1/ledger/${alice.me.company.id}/entries/${(await ledger.post(simpleEntry('2025-01-17', '1'))).body.id}`).set(...bearer(bob.accessToken)).expect(404);
  });
});

describe('postJournalEntry: totals beyond the stored precision', () => {
  test('"250 debit lines of 9999999999999999.99" answer 400 validation, not 500, and nothing is written', async () => {
    const max = '9999999999999999.99';
    const lines = [
      ...Array.from({ length: 250 }, () => ({ accountCode: '5110', debit: max })),
      ...Array.from({ length: 250 }, () => ({ accountCode: '9010', credit: max })),
    ];
    const before = (await ledger.list().expect(200)).body.totalElements;
    const res = await ledger.post(entryBody('2025-03-03', lines)).expect(400);
    expect(res.body).toMatchObject({ type: '/problems/validation', errors: [{ path: '/body/lines' }] });
    expect((await ledger.list().expect(200)).body.totalElements).toBe(before);
  });

  test('a total just within the stored precision (100 lines of 9999999999999999.99) posts', async () => {
    const debits = Array.from({ length: 100 }, () => ({ accountCode: '5110', debit: '9999999999999999.99' }));
    const credits = Array.from({ length: 100 }, () => ({ accountCode: '9010', credit: '9999999999999999.99' }));
    const res = await ledger.post(entryBody('2025-03-04', [...debits, ...credits])).expect(201);
    expect(res.body.totalDebit).toBe('999999999999999999.00');
  });
});

// NAS 21 numbering: a group account ends in 00 (5100) and its accounts share its first two digits (5110).
const groupOf = (code: string) => `${code.slice(0, 2)}00`;
const NAS21_GROUPS = NAS21_CHART_OF_ACCOUNTS.filter((a) => groupOf(a.code) === a.code).map((a) => a.code);
const NAS21_DETAILS = NAS21_CHART_OF_ACCOUNTS.filter((a) => groupOf(a.code) !== a.code).map((a) => a.code);

describe('postJournalEntry: header accounts', () => {
  test('when lines name header accounts (5100 over 5110, 9000 over 9010), then 400 header-account naming each line and account, and nothing is posted', async () => {
    const before = (await ledger.list().expect(200)).body.totalElements;
    const body = entryBody('2025-01-20', [
      { accountCode: '5110', debit: '10' },
      { accountCode: '5100', debit: '5' },
      { accountCode: '9000', credit: '15' },
    ]);
    const res = await ledger.post(body).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/header-account', status: 400 });
    expect(res.body.errors).toEqual([
      { path: '/body/lines/1/accountCode', message: 'line 2: 5100 is a header account; post to one of its detail accounts (5110)' },
      { path: '/body/lines/2/accountCode', message: 'line 3: 9000 is a header account; post to one of its detail accounts (9010, 9020, 9030, 9040, 9050)' },
    ]);
    expect(res.body.detail).toContain('5100');
    expect((await ledger.list().expect(200)).body.totalElements).toBe(before);
    // The same entry on the detail accounts posts.
    const detail = entryBody('2025-01-20', [{ accountCode: '5110', debit: '10' }, { accountCode: '5110', debit: '5' }, { accountCode: '9010', credit: '15' }]);
    const posted = await ledger.post(detail).expect(201);
    expect(posted.body.lines.map((l: { accountCode: string }) => l.accountCode)).toEqual(['5110', '5110', '9010']);
  });

  test('when an entry names every NAS 21 group, then 400 with one error per line; every one of its detail accounts posts', async () => {
    expect([NAS21_GROUPS.length, NAS21_DETAILS.length]).toEqual([74, 247]);
    const bob = await registerWorkspace(stack);
    const l = ledgerApi(stack, bob);
    const onGroups = await l.post(entryBody('2025-01-21', [...NAS21_GROUPS.map((code) => ({ accountCode: code, debit: '1' })), { accountCode: '9010', credit: '74' }])).expect(400);
    expect(onGroups.body.type).toBe('/problems/header-account');
    expect(onGroups.body.errors.map((e: { path: string }) => e.path)).toEqual(NAS21_GROUPS.map((_, i) => `/body/lines/${i}/accountCode`));
    expect((await l.list().expect(200)).body.totalElements).toBe(0);
    const onDetails = await l.post(entryBody('2025-01-21', [...NAS21_DETAILS.map((code) => ({ accountCode: code, debit: '1' })), { accountCode: '9010', credit: '247' }])).expect(201);
    expect(onDetails.body.lines).toHaveLength(248);
    const tb = await l.trialBalance('2025-01-31').expect(200);
    expect(tb.body.lines.map((line: { code: string }) => line.code)).toEqual(NAS21_DETAILS);
  });

  test('when a line names an unknown account and another a header, then 400 unknown-account first', async () => {
    const res = await ledger.post(entryBody('2025-01-22', [{ accountCode: '5111', debit: '1' }, { accountCode: '5100', debit: '1' }, { accountCode: '9010', credit: '2' }])).expect(400);
    expect(res.body.type).toBe('/problems/unknown-account');
    expect(res.body.errors).toEqual([{ path: '/body/lines/0/accountCode', message: "no account 5111 in this company's chart" }]);
  });

  test('when the company has custom accounts and subaccounts, then they are detail accounts and make no account a header', async () => {
    const carol = await registerWorkspace(stack);
    const l = ledgerApi(stack, carol);
    const settings = `/api/v1/accounting-settings/${carol.me.company.id}`;
    const custom = (code: string) =>
      api(stack).post(`${settings}/accounts`).set(...bearer(carol.accessToken)).send({ code, name: `Custom ${code}`, type: 'ASSET', enabled: true }).expect(201);
    // 5160 is numbered within the group 5100; 3300 and 3310 look like a group and its account, but are the company's own.
    await custom('5160');
    await custom('3300');
    await custom('3310');
    const sub = await api(stack).post(`${settings}/accounts/5110/subaccounts`).set(...bearer(carol.accessToken)).send({ code: 'NBU', name: 'National Bank', enabled: true }).expect(201);
    const res = await l
      .post(entryBody('2025-01-23', [
        { accountCode: '5160', debit: '1' },
        { accountCode: '3300', debit: '2' },
        { accountCode: '3310', debit: '3' },
        { accountCode: '5110', debit: '4' },
        { accountCode: '5110', subaccountId: sub.body.id, debit: '5' },
        { accountCode: '9010', credit: '15' },
      ]))
      .expect(201);
    expect(res.body.totalDebit).toBe('15.00');
    // 5100 stays a header with only its global account under it.
    const header = await l.post(simpleEntry('2025-01-23', '1', '5100')).expect(400);
    expect(header.body.errors).toEqual([{ path: '/body/lines/0/accountCode', message: 'line 1: 5100 is a header account; post to one of its detail accounts (5110)' }]);
  });
});

describe('header accounts in the database itself', () => {
  test('a journal line on a header account is refused for every role (superuser, owner, application), written by hand', async () => {
    const dave = await registerWorkspace(stack);
    const l = ledgerApi(stack, dave);
    await l.post(simpleEntry('2025-01-24', '1')).expect(201);
    const write = (db: typeof stack.admin, number: number, account: string) =>
      db.transaction(async (tx) => {
        const replacements = { t: dave.me.tenantId, le: dave.me.company.id, number, account };
        await db.query(`SELECT set_config('app.tenant_id', :t, true)`, { replacements, transaction: tx });
        await db.query(
          `WITH e AS (INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
                       VALUES (:t, gen_random_uuid(), :le, :number, '2025-01-24', 'by hand', gen_random_uuid(), 'x', 5, 5, 2, gen_random_uuid()) RETURNING id, number)
           INSERT INTO journal_lines (tenant_id, entry_id, entry_number, line_no, legal_entity_id, entry_date, account_code, debit, credit)
           SELECT :t, e.id, e.number, n, :le, '2025-01-24', CASE n WHEN 1 THEN :account ELSE '9010' END, CASE n WHEN 1 THEN 5 ELSE 0 END, CASE n WHEN 1 THEN 0 ELSE 5 END
             FROM e, generate_series(1, 2) n`,
          { replacements, transaction: tx },
        );
      });
    for (const db of [stack.admin, stack.owner, stack.db]) {
      await expect(write(db, 1000, '5100')).rejects.toThrow(/5100 is a header account/);
      await expect(write(db, 1000, '0100')).rejects.toThrow(/0100 is a header account/);
    }
    // The same statement on a detail account commits, so the refusal is the header rule's.
    await write(stack.admin, 1000, '5110');
    expect((await l.list().expect(200)).body.totalElements).toBe(2);
  });
});

describe('listJournalEntries: GET /api/v1/ledger/{legalEntityId}/entries', () => {
  test('entries in number order, filtered by dates (inclusive) and by account, in a page envelope', async () => {
    const carol = await registerWorkspace(stack);
    const l = ledgerApi(stack, carol);
    await l.post(simpleEntry('2025-03-01', '1')).expect(201);
    await l.post(simpleEntry('2025-03-02', '2', '5010')).expect(201);
    await l.post(simpleEntry('2025-03-03', '3')).expect(201);
    const all = await l.list({ size: 2 }).expect(200);
    expect(all.body).toMatchObject({ page: 0, size: 2, totalElements: 3, totalPages: 2 });
    expect(all.body.items.map((e: { number: number }) => e.number)).toEqual([1, 2]);
    const dated = await l.list({ dateFrom: '2025-03-02', dateTo: '2025-03-03' }).expect(200);
    expect(dated.body.items.map((e: { entryDate: string }) => e.entryDate)).toEqual(['2025-03-02', '2025-03-03']);
    const cash = await l.list({ accountCode: '5010' }).expect(200);
    expect(cash.body.items.map((e: { number: number }) => e.number)).toEqual([2]);
    await l.list({ dateFrom: '2025-02-30' }).expect(400);
  });
});

describe('append-only in the database itself', () => {
  test('entries and lines reject UPDATE and DELETE, even for a superuser', async () => {
    const res = await ledger.post(simpleEntry('2025-01-18', '9.00')).expect(201);
    for (const sql of [
      'UPDATE journal_entries SET description = \'x\' WHERE id = :id',
      'DELETE FROM journal_entries WHERE id = :id',
      'UPDATE journal_lines SET debit = 1 WHERE entry_id = :id',
      'DELETE FROM journal_lines WHERE entry_id = :id',
      'TRUNCATE journal_lines',
    ]) {
      await expect(stack.admin.query(sql, { replacements: { id: res.body.id } })).rejects.toThrow(/append-only/);
    }
  });

  test('an entry whose lines do not add up to its totals cannot commit, even written by hand', async () => {
    const scope = { tenantId: alice.me.tenantId, le: alice.me.company.id };
    await expect(
      stack.admin.transaction(async (tx) => {
        await stack.admin.query(
          `INSERT INTO journal_entries (tenant_id, id, legal_entity_id, number, entry_date, description, request_id, request_hash, total_debit, total_credit, line_count, correlation_id)
           VALUES (:tenantId, gen_random_uuid(), :le, 999999, '2025-01-19', 'forged', gen_random_uuid(), 'x', 10, 10, 2, gen_random_uuid())`,
          { replacements: scope, transaction: tx },
        );
      }),
    ).rejects.toThrow(/does not balance/);
  });
});
