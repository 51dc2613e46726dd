import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, mailedInvitationToken, registerWorkspace, waitForMail, type Registered } from '../../helpers/clients';
import { until } from '../../helpers/worker-process';
import { withTenant } from '../../../db/connection';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { startReceiver, type Receiver } from '../../helpers/webhook-deliveries';
import { bankStatementsApi, waitForImport } from '../../helpers/bank-statements';
import { renderOneC } from '../../unit/bank-statements/render';

let stack: TestStack;
let a: Registered;
let b: Registered;
let receiver: Receiver;
beforeAll(async () => {
  stack = await startTestStack();
  receiver = await startReceiver();
  [a, b] = await Promise.all([registerWorkspace(stack), registerWorkspace(stack)]);
  // A webhook endpoint, so the posting below records an event and a delivery, and the delivery its attempt.
  await api(stack).post('/api/v1/webhooks/endpoints').set(...bearer(a.accessToken)).send({ url: receiver.url, eventTypes: ['journal-entry.posted'] }).expect(201);
  // A row in each accounting table, so every tenant table below has rows to hide.
  const company = `/api/v1/accounting-settings/${a.me.company.id}`;
  await api(stack).post(`${company}/accounts`).set(...bearer(a.accessToken)).send({ code: '0199', name: 'Tools', type: 'ASSET', enabled: true }).expect(201);
  await api(stack).post(`${company}/accounts/0199/subaccounts`).set(...bearer(a.accessToken)).send({ code: 't1', name: 'Drills', enabled: true }).expect(201);
  await api(stack)
    .put(company)
    .set(...bearer(a.accessToken))
    .send({ depreciationMethod: 'STRAIGHT_LINE', inventoryValuationMethod: 'FIFO', taxRegime: 'GENERAL', vatRate: 12, expectedVersion: 0 })
    .expect(200);
  // And a counterparty in the register.
  const supplier = await api(stack).post(`/api/v1/counterparties/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ name: 'RLS Supplier', tin: '301234567', bankAccounts: [{ bankCode: '00014', accountNumber: '20208000900100001010' }] }).expect(201);
  // And one of the company's bank accounts.
  const bankAccount = await api(stack).post(`/api/v1/bank-accounts/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ bankCode: '00014', accountNumber: '20208000100100001001', name: 'RLS Account' }).expect(201);
  // And a rule for matching its lines.
  await api(stack).post(`/api/v1/bank-matching-rules/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ name: 'RLS fees', priority: 1, conditions: { direction: 'OUT' }, action: { type: 'POST_TO_ACCOUNT', accountCode: '9430' } }).expect(201);
  // And a fixed asset.
  await api(stack).post(`/api/v1/fixed-assets/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ inventoryNumber: 'RLS-1', name: 'RLS laptop', assetAccount: '0150', cost: '1200.00', usefulLifeMonths: 12 }).expect(201);
  // And one put in service and disposed of two months later (its charges in the depreciation subledger).
  const disposable = await api(stack).post(`/api/v1/fixed-assets/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ inventoryNumber: 'RLS-2', name: 'RLS phone', assetAccount: '0150', cost: '600.00', usefulLifeMonths: 6 }).expect(201);
  await api(stack).post(`/api/v1/fixed-assets/${a.me.company.id}/${disposable.body.id}/commissioning`).set(...bearer(a.accessToken)).send({ date: '2025-01-10', expectedVersion: 1 }).expect(200);
  await api(stack).post(`/api/v1/fixed-assets/${a.me.company.id}/${disposable.body.id}/disposal`).set(...bearer(a.accessToken)).send({ date: '2025-03-15', expectedVersion: 2 }).expect(200);
  // And a column profile for CSV statements.
  await api(stack).post(`/api/v1/bank-statement-profiles/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ name: 'RLS CSV', profile: { headerRow: 1, dateFormat: 'DD.MM.YYYY', decimalSeparator: ',', columns: { date: 'Date', amount: 'Amount', purpose: 'Purpose' },
      statement: { accountNumber: { value: '20208000100100001001' }, openingBalance: { label: 'Opening' }, closingBalance: { label: 'Closing' } } } }).expect(201);
  // And a statement imported into it (the import, its file, its line).
  const statements = bankStatementsApi(stack, a, bankAccount.body.id);
  const line = { date: '2025-02-03', direction: 'IN' as const, amount: '75.00', counterpartyName: 'RLS Payer', purpose: 'Payment' };
  const imported = await statements.import(renderOneC({ accountNumber: '20208000100100001001', bankCode: '00014', currency: 'UZS', periodFrom: '2025-02-03', periodTo: '2025-02-03', openingBalance: '0.00', closingBalance: '75.00', lines: [line] })).expect(202);
  expect((await waitForImport(statements, imported.body.id)).status).toBe('COMPLETED');
  // And a posted sales invoice (an invoice, its line, the company's number series).
  const invoice = await api(stack).post(`/api/v1/invoices/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ kind: 'SALES', date: '2025-02-03', counterpartyId: supplier.body.id, lines: [{ description: 'Goods', quantity: '1', unitPrice: '100' }] }).expect(201);
  await api(stack).post(`/api/v1/invoices/${a.me.company.id}/${invoice.body.id}/posting`).set(...bearer(a.accessToken)).expect(200);
  // And a payment allocated to it.
  await api(stack).post(`/api/v1/payments/${a.me.company.id}`).set(...bearer(a.accessToken))
    .send({ requestId: randomUUID(), direction: 'IN', date: '2025-02-04', counterpartyId: supplier.body.id, amount: '50', cashAccount: '5110', allocate: 'OLDEST_FIRST' }).expect(201);
  // And the aging, kept (its snapshot and rows); then an entry on the receivable account marks it changed.
  await api(stack).get(`/api/v1/ledger/${a.me.company.id}/reports/aging`).query({ asOf: '2025-02-28', side: 'RECEIVABLE' }).set(...bearer(a.accessToken)).expect(200);
  // And in each ledger table: an entry, a completed close and its snapshot.
  const ledger = ledgerApi(stack, a);
  await ledger.post(simpleEntry('2025-01-15', '10.00', '4010')).expect(201);
  const close = await ledger.close('2025-01-31').expect(202);
  expect((await waitForClose(ledger, close.body.id)).status).toBe('COMPLETED');
  // And an accepted invitation (an invitation row and its acceptance row), joined from its mail.
  const invitee = `rls-${a.me.tenantId.slice(0, 8)}@example.com`;
  await api(stack).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(a.accessToken)).send({ email: invitee, roles: ['VIEWER'] }).expect(201);
  await api(stack).post('/api/v1/auth/membership-invitations/accept').set('Host', `${a.me.company.slug}.${stack.config.baseDomain}`)
    .send({ token: await mailedInvitationToken(stack, invitee), password: 'a long enough new password' }).expect(200);
  await api(stack).post('/api/v1/notifications/devices').set(...bearer(a.accessToken)).send({ token: `rls-device-${a.me.tenantId}` }).expect(201);
  await api(stack).post('/api/v1/notifications/messages').set(...bearer(a.accessToken))
    .send({ recipientMembershipId: a.me.membershipId, requestId: a.me.tenantId, title: 'RLS', body: 'Row-level security' }).expect(202);
  // And an emailed invitation, whose mail is linked to its audit event.
  const mailed = `rls-mailed-${a.me.tenantId.slice(0, 8)}@example.com`;
  await api(stack).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(a.accessToken)).send({ email: mailed, roles: ['VIEWER'] }).expect(201);
  await waitForMail(stack, mailed);
  await until(async () => {
    const [row] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_audit_links WHERE tenant_id = :a', {
      replacements: { a: a.me.tenantId },
      type: QueryTypes.SELECT,
    });
    return row!.n > 0 ? true : null;
  }, 10_000, 'the invitation mail linked to its audit event');
  await until(async () => {
    const [row] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE tenant_id = :a', {
      replacements: { a: a.me.tenantId },
      type: QueryTypes.SELECT,
    });
    return row!.n > 0 ? true : null;
  }, 15_000, 'the webhook delivery\'s attempt recorded');
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});

async function tenantTables(db: Sequelize): Promise<Array<{ table: string; rls: boolean; forced: boolean; policies: number }>> {
  return db.query(
    `SELECT c.relname AS table, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
            (SELECT count(*)::int FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
        AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
             OR c.relname = 'tenants')
      ORDER BY c.relname`,
    { type: QueryTypes.SELECT },
  );
}

describe('row-level security', () => {
  test('every tenant table (from pg_class) has row-level security on and a policy', async () => {
    const tables = await tenantTables(stack.admin);
    expect(tables.map((t) => t.table)).toEqual(
      expect.arrayContaining([
        'tenants', 'memberships', 'sessions', 'refresh_tokens', 'audit_events',
        'company_accounts', 'company_subaccounts', 'company_accounting_settings',
        'ledger_states', 'journal_entries', 'journal_lines', 'period_closes', 'period_close_balances', 'revaluations',
        'membership_invitations', 'invitation_acceptances',
        'push_devices', 'push_messages', 'push_deliveries', 'mail_audit_links',
        'webhook_endpoints', 'webhook_events', 'webhook_deliveries', 'webhook_attempts', 'webhook_endpoint_slots',
        'counterparties', 'document_counters', 'invoices', 'invoice_lines', 'payments', 'payment_allocations',
        'bank_accounts', 'bank_statement_imports', 'bank_statement_file_parts', 'bank_lines', 'bank_matching_rules', 'bank_statement_profiles',
        'fixed_assets', 'fixed_asset_charges', 'aging_snapshots', 'aging_kept_rows', 'aging_marks',
      ]),
    );
    for (const t of tables) {
      expect({ table: t.table, rls: t.rls, forced: t.forced, hasPolicy: t.policies > 0 }).toEqual({ table: t.table, rls: true, forced: true, hasPolicy: true });
    }
  });

  test('every tenant table keeps one most common tenant and company in its statistics, so a tenant ANALYZE has not met is not planned as empty', async () => {
    const columns = await stack.admin.query<{ table: string; column: string; target: number }>(
      `SELECT c.relname AS table, a.attname AS column, a.attstattarget AS target
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attname IN ('tenant_id', 'legal_entity_id') AND NOT a.attisdropped
        ORDER BY 1, 2`,
      { type: QueryTypes.SELECT },
    );
    expect(columns.length).toBeGreaterThan(40);
    for (const c of columns) expect(c).toEqual({ table: c.table, column: c.column, target: 1 });
  });

  test('"FORCE ROW LEVEL SECURITY": the owner role without a tenant sees zero rows of every tenant table, and cannot write them', async () => {
    for (const { table } of await tenantTables(stack.admin)) {
      const [asOwner] = await stack.owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`, { type: QueryTypes.SELECT });
      expect({ table, visibleToOwner: asOwner!.n }).toEqual({ table, visibleToOwner: 0 });
    }
    await expect(
      stack.owner.query(`INSERT INTO legal_entities (tenant_id, id, name) VALUES (:b, gen_random_uuid(), 'Planted by the owner')`, { replacements: { b: b.me.tenantId } }),
    ).rejects.toThrow(/row-level security|violates/);
  });

  test('the cross-tenant look-ups are owned by a NOLOGIN role that alone bypasses row-level security', async () => {
    const functions = await stack.admin.query<{ name: string; owner: string; login: boolean; bypass: boolean; definer: boolean }>(
      `SELECT p.proname AS name, r.rolname AS owner, r.rolcanlogin AS login, r.rolbypassrls AS bypass, p.prosecdef AS definer
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_roles r ON r.oid = p.proowner
        WHERE n.nspname = 'public' AND p.prosecdef ORDER BY 1`,
      { type: QueryTypes.SELECT },
    );
    expect(functions.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'app_claim_push_device', 'app_identity_memberships', 'app_prune', 'mail_messages_to_audit', 'app_load_principal', 'app_refresh_token_tenant', 'app_revoke_identity_sessions', 'app_tenant_by_slug',
        'app_webhook_subscriber_tenants',
      ]),
    );
    for (const f of functions) expect(f).toEqual({ name: f.name, owner: stack.config.database.definerRole, login: false, bypass: true, definer: true });
  });

  test('the application role may not delete from the global secret tables, nor rewrite factor attempts', async () => {
    const [row] = await stack.admin.query<Record<string, boolean>>(
      `SELECT has_table_privilege(:app, 'identities', 'DELETE') AS identities,
              has_table_privilege(:app, 'recovery_codes', 'DELETE') AS recovery_codes,
              has_table_privilege(:app, 'totp_enrollments', 'DELETE') AS totp_enrollments,
              has_table_privilege(:app, 'magic_links', 'DELETE') AS magic_links,
              has_table_privilege(:app, 'factor_attempts', 'DELETE') AS factor_attempts_delete,
              has_column_privilege(:app, 'factor_attempts', 'attempted_at', 'UPDATE') AS factor_attempts_rewrite,
              has_column_privilege(:app, 'factor_attempts', 'released_at', 'UPDATE') AS factor_attempts_release,
              has_table_privilege(:app, 'mail_messages', 'DELETE') AS mail_messages_delete,
              has_table_privilege(:app, 'mail_events', 'DELETE') AS mail_events_delete,
              has_column_privilege(:app, 'mail_events', 'state', 'UPDATE') AS mail_events_rewrite,
              has_column_privilege(:app, 'audit_events', 'delivery_state', 'UPDATE') AS audit_delivery_state`,
      { replacements: { app: new URL(stack.config.database.url).username }, type: QueryTypes.SELECT },
    );
    expect(row).toEqual({
      identities: false, recovery_codes: false, totp_enrollments: false, magic_links: false,
      factor_attempts_delete: false, factor_attempts_rewrite: false, factor_attempts_release: true,
      mail_messages_delete: false, mail_events_delete: false, mail_events_rewrite: false, audit_delivery_state: false,
    });
  });

  test('the application role is no superuser, has no BYPASSRLS and owns no table', async () => {
    const [role] = await stack.db.query<{ rolsuper: boolean; rolbypassrls: boolean; owned: number }>(
      `SELECT r.rolsuper, r.rolbypassrls,
              (SELECT count(*)::int FROM pg_class c WHERE c.relowner = r.oid AND c.relkind = 'r') AS owned
         FROM pg_roles r WHERE r.rolname = current_user`,
      { type: QueryTypes.SELECT },
    );
    expect(role).toEqual({ rolsuper: false, rolbypassrls: false, owned: 0 });
  });

  test('"with no tenant set a query sees zero rows", in every tenant table, though rows exist', async () => {
    for (const { table } of await tenantTables(stack.admin)) {
      const [asAdmin] = await stack.admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`, { type: QueryTypes.SELECT });
      const [asApp] = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`, { type: QueryTypes.SELECT });
      expect({ table, rowsExist: asAdmin.n > 0, visibleWithoutTenant: asApp.n }).toEqual({ table, rowsExist: true, visibleWithoutTenant: 0 });
    }
  });

  test('with tenant A set, tenant B rows are invisible and cannot be written', async () => {
    await withTenant(stack.db, a.me.tenantId, async (tx) => {
      const rows = await stack.db.query<{ tenant_id: string }>('SELECT DISTINCT tenant_id FROM memberships', { type: QueryTypes.SELECT, transaction: tx });
      expect(rows).toEqual([{ tenant_id: a.me.tenantId }]);
      const [{ n }] = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE tenant_id = :b', {
        replacements: { b: b.me.tenantId },
        type: QueryTypes.SELECT,
        transaction: tx,
      });
      expect(n).toBe(0);
    });
    await expect(
      withTenant(stack.db, a.me.tenantId, (tx) =>
        stack.db.query("UPDATE legal_entities SET name = 'hijacked' WHERE tenant_id = :b", { replacements: { b: b.me.tenantId }, transaction: tx }),
      ),
    ).resolves.toBeDefined();
    const [{ name }] = await stack.admin.query<{ name: string }>('SELECT name FROM legal_entities WHERE tenant_id = :b', {
      replacements: { b: b.me.tenantId },
      type: QueryTypes.SELECT,
    });
    expect(name).toBe(b.me.company.name);
    await expect(
      withTenant(stack.db, a.me.tenantId, (tx) =>
        stack.db.query(
          "INSERT INTO roles (tenant_id, id, code, name) VALUES (:b, gen_random_uuid(), 'VIEWER', 'smuggled')",
          { replacements: { b: b.me.tenantId }, transaction: tx },
        ),
      ),
    ).rejects.toThrow(/row-level security/);
  });

  test("the register: with tenant B set, the application role sees none of tenant A's counterparties and cannot insert one for tenant A", async () => {
    const visible = (tenant: string) =>
      withTenant(stack.db, tenant, (tx) =>
        stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM counterparties WHERE tenant_id = :a OR legal_entity_id = :company', {
          replacements: { a: a.me.tenantId, company: a.me.company.id },
          type: QueryTypes.SELECT,
          transaction: tx,
        }),
      );
    expect(await visible(a.me.tenantId)).toEqual([{ n: 1 }]);
    expect(await visible(b.me.tenantId)).toEqual([{ n: 0 }]);
    await expect(
      withTenant(stack.db, b.me.tenantId, (tx) =>
        stack.db.query(
          `INSERT INTO counterparties (tenant_id, id, legal_entity_id, name, version) VALUES (:a, gen_random_uuid(), :company, 'Smuggled', 1)`,
          { replacements: { a: a.me.tenantId, company: a.me.company.id }, transaction: tx },
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    await withTenant(stack.db, b.me.tenantId, (tx) =>
      stack.db.query("UPDATE counterparties SET name = 'Hijacked' WHERE tenant_id = :a", { replacements: { a: a.me.tenantId }, transaction: tx }),
    );
    const [row] = await stack.admin.query<{ name: string; n: number }>('SELECT min(name) AS name, count(*)::int AS n FROM counterparties WHERE tenant_id = :a', {
      replacements: { a: a.me.tenantId },
      type: QueryTypes.SELECT,
    });
    expect(row).toEqual({ name: 'RLS Supplier', n: 1 });
  });

  test("the documents: with tenant B set, the application role sees none of tenant A's invoices, lines, number series, payments or allocations, and cannot insert an invoice for tenant A", async () => {
    const count = (tenant: string, table: string) =>
      withTenant(stack.db, tenant, (tx) =>
        stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = :a`, { replacements: { a: a.me.tenantId }, type: QueryTypes.SELECT, transaction: tx }),
      );
    for (const table of ['invoices', 'invoice_lines', 'document_counters', 'payments', 'payment_allocations']) {
      expect({ table, rows: await count(a.me.tenantId, table) }).toEqual({ table, rows: [{ n: 1 }] });
      expect({ table, rows: await count(b.me.tenantId, table) }).toEqual({ table, rows: [{ n: 0 }] });
    }
    await expect(
      withTenant(stack.db, b.me.tenantId, (tx) =>
        stack.db.query(
          `INSERT INTO invoices (tenant_id, id, legal_entity_id, kind, status, invoice_date, due_date, counterparty_id, currency, line_count, total_net, total_vat, total_gross, version)
           SELECT :a, gen_random_uuid(), :company, 'SALES', 'DRAFT', '2025-02-03', '2025-02-03', gen_random_uuid(), 'UZS', 1, 1, 0, 1, 1`,
          { replacements: { a: a.me.tenantId, company: a.me.company.id }, transaction: tx },
        ),
      ),
    ).rejects.toThrow(/row-level security/);
  });

  test("the bank accounts: with tenant B set, the application role sees none of tenant A's, cannot insert or change one for tenant A", async () => {
    const visible = (tenant: string) =>
      withTenant(stack.db, tenant, (tx) =>
        stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM bank_accounts WHERE tenant_id = :a OR legal_entity_id = :company', {
          replacements: { a: a.me.tenantId, company: a.me.company.id },
          type: QueryTypes.SELECT,
          transaction: tx,
        }),
      );
    expect(await visible(a.me.tenantId)).toEqual([{ n: 1 }]);
    expect(await visible(b.me.tenantId)).toEqual([{ n: 0 }]);
    await expect(
      withTenant(stack.db, b.me.tenantId, (tx) =>
        stack.db.query(
          `INSERT INTO bank_accounts (tenant_id, id, legal_entity_id, bank_code, account_number, currency, account_code, name, version)
           VALUES (:a, gen_random_uuid(), :company, '00014', '20208000100100001999', 'UZS', '5110', 'Smuggled', 1)`,
          { replacements: { a: a.me.tenantId, company: a.me.company.id }, transaction: tx },
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    await withTenant(stack.db, b.me.tenantId, (tx) =>
      stack.db.query("UPDATE bank_accounts SET name = 'Hijacked' WHERE tenant_id = :a", { replacements: { a: a.me.tenantId }, transaction: tx }),
    );
    const [row] = await stack.admin.query<{ name: string; n: number }>('SELECT min(name) AS name, count(*)::int AS n FROM bank_accounts WHERE tenant_id = :a', {
      replacements: { a: a.me.tenantId },
      type: QueryTypes.SELECT,
    });
    expect(row).toEqual({ name: 'RLS Account', n: 1 });
  });

  test('the application role may archive a bank account but never delete one', async () => {
    const [row] = await stack.admin.query<Record<string, boolean>>(
      "SELECT has_table_privilege(:app, 'bank_accounts', 'UPDATE') AS update, has_table_privilege(:app, 'bank_accounts', 'DELETE') AS delete, has_table_privilege(:app, 'bank_accounts', 'TRUNCATE') AS truncate",
      { replacements: { app: new URL(stack.config.database.url).username }, type: QueryTypes.SELECT },
    );
    expect(row).toEqual({ update: true, delete: false, truncate: false });
  });

  test("the bank statements: with tenant B set, the application role sees none of tenant A's imports, files or lines, cannot change them, and none of them can be deleted", async () => {
    for (const table of ['bank_statement_imports', 'bank_statement_file_parts', 'bank_lines']) {
      const count = (tenant: string) =>
        withTenant(stack.db, tenant, (tx) => stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = :a`, { replacements: { a: a.me.tenantId }, type: QueryTypes.SELECT, transaction: tx }));
      expect({ table, ownTenant: await count(a.me.tenantId), otherTenant: await count(b.me.tenantId) }).toEqual({ table, ownTenant: [{ n: 1 }], otherTenant: [{ n: 0 }] });
      const [rights] = await stack.admin.query<Record<string, boolean>>(`SELECT has_table_privilege(:app, :table, 'DELETE') AS delete, has_table_privilege(:app, :table, 'TRUNCATE') AS truncate`, {
        replacements: { app: new URL(stack.config.database.url).username, table },
        type: QueryTypes.SELECT,
      });
      expect({ table, ...rights }).toEqual({ table, delete: false, truncate: false });
    }
    await withTenant(stack.db, b.me.tenantId, (tx) => stack.db.query("UPDATE bank_lines SET status = 'PROPOSED', proposal = '{}' WHERE tenant_id = :a", { replacements: { a: a.me.tenantId }, transaction: tx }));
    const [line] = await stack.admin.query<{ status: string }>('SELECT status FROM bank_lines WHERE tenant_id = :a', { replacements: { a: a.me.tenantId }, type: QueryTypes.SELECT });
    expect(line!.status).toBe('UNMATCHED');
  });

  test("the fixed assets: with tenant B set, the application role sees none of tenant A's, cannot insert or change one for tenant A, and none can be deleted", async () => {
    const visible = (tenant: string) =>
      withTenant(stack.db, tenant, (tx) =>
        stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM fixed_assets WHERE tenant_id = :a OR legal_entity_id = :company', {
          replacements: { a: a.me.tenantId, company: a.me.company.id },
          type: QueryTypes.SELECT,
          transaction: tx,
        }),
      );
    expect(await visible(a.me.tenantId)).toEqual([{ n: 2 }]);
    expect(await visible(b.me.tenantId)).toEqual([{ n: 0 }]);
    await expect(
      withTenant(stack.db, b.me.tenantId, (tx) =>
        stack.db.query(
          `INSERT INTO fixed_assets (tenant_id, id, legal_entity_id, inventory_number, name, asset_account, depreciation_account, expense_account, source_account, cost, useful_life_months, version)
           VALUES (:a, gen_random_uuid(), :company, 'SMUGGLED', 'Smuggled', '0150', '0250', '9420', '0820', 1, 1, 1)`,
          { replacements: { a: a.me.tenantId, company: a.me.company.id }, transaction: tx },
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    await withTenant(stack.db, b.me.tenantId, (tx) => stack.db.query("UPDATE fixed_assets SET name = 'Hijacked' WHERE tenant_id = :a", { replacements: { a: a.me.tenantId }, transaction: tx }));
    const rows = await stack.admin.query<{ name: string }>('SELECT name FROM fixed_assets WHERE tenant_id = :a ORDER BY inventory_number', { replacements: { a: a.me.tenantId }, type: QueryTypes.SELECT });
    expect(rows).toEqual([{ name: 'RLS laptop' }, { name: 'RLS phone' }]);
    const [rights] = await stack.admin.query<Record<string, boolean>>("SELECT has_table_privilege(:app, 'fixed_assets', 'DELETE') AS delete, has_table_privilege(:app, 'fixed_assets', 'TRUNCATE') AS truncate", {
      replacements: { app: new URL(stack.config.database.url).username },
      type: QueryTypes.SELECT,
    });
    expect(rights).toEqual({ delete: false, truncate: false });
  });

  test("the depreciation subledger: with tenant B set, the application role sees none of tenant A's charges and cannot add one; none is ever changed or deleted", async () => {
    const visible = (tenant: string) =>
      withTenant(stack.db, tenant, (tx) =>
        stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM fixed_asset_charges WHERE tenant_id = :a', { replacements: { a: a.me.tenantId }, type: QueryTypes.SELECT, transaction: tx }),
      );
    expect(await visible(a.me.tenantId)).toEqual([{ n: 2 }]);
    expect(await visible(b.me.tenantId)).toEqual([{ n: 0 }]);
    const [charge] = await stack.admin.query<{ asset_id: string; entry_id: string }>('SELECT asset_id, entry_id FROM fixed_asset_charges WHERE tenant_id = :a LIMIT 1', {
      replacements: { a: a.me.tenantId },
      type: QueryTypes.SELECT,
    });
    await expect(
      withTenant(stack.db, b.me.tenantId, (tx) =>
        stack.db.query("INSERT INTO fixed_asset_charges (tenant_id, asset_id, month, amount, entry_id, entry_date) VALUES (:a, :asset, '2025-06-01', 1, :entry, '2025-06-30')", {
          replacements: { a: a.me.tenantId, asset: charge!.asset_id, entry: charge!.entry_id },
          transaction: tx,
        }),
      ),
    ).rejects.toThrow(/row-level security/);
    const [rights] = await stack.admin.query<Record<string, boolean>>(
      "SELECT has_table_privilege(:app, 'fixed_asset_charges', 'UPDATE') AS update, has_table_privilege(:app, 'fixed_asset_charges', 'DELETE') AS delete, has_table_privilege(:app, 'fixed_asset_charges', 'TRUNCATE') AS truncate",
      { replacements: { app: new URL(stack.config.database.url).username }, type: QueryTypes.SELECT },
    );
    expect(rights).toEqual({ update: false, delete: false, truncate: false });
  });

  test('the application role may archive a counterparty but never delete one', async () => {
    const [row] = await stack.admin.query<Record<string, boolean>>(
      "SELECT has_table_privilege(:app, 'counterparties', 'UPDATE') AS update, has_table_privilege(:app, 'counterparties', 'DELETE') AS delete, has_table_privilege(:app, 'counterparties', 'TRUNCATE') AS truncate",
      { replacements: { app: new URL(stack.config.database.url).username }, type: QueryTypes.SELECT },
    );
    expect(row).toEqual({ update: true, delete: false, truncate: false });
  });

  test('the chart page function runs as its caller: with tenant B set, tenant A\'s custom account and subaccount are invisible', async () => {
    const page = (tenant: string) =>
      withTenant(stack.db, tenant, (tx) =>
        stack.db.query<{ code: string; custom: boolean; subaccount_count: string; total: string }>(
          "SELECT * FROM app_company_chart_page(:a, :company, '0199', NULL, NULL, 50, 0)",
          { replacements: { a: a.me.tenantId, company: a.me.company.id }, type: QueryTypes.SELECT, transaction: tx },
        ),
      );
    const [own] = await page(a.me.tenantId);
    expect(own).toMatchObject({ code: '0199', custom: true, subaccount_count: '1', total: '1' });
    expect(await page(b.me.tenantId)).toEqual([]);
    const [definer] = await stack.admin.query<{ definer: boolean }>("SELECT prosecdef AS definer FROM pg_proc WHERE proname = 'app_company_chart_page'", {
      type: QueryTypes.SELECT,
    });
    expect(definer).toEqual({ definer: false });
  });

  test('the tenant setting is transaction-scoped: the pooled connection forgets it after commit', async () => {
    const conn = await stack.db.connectionManager.getConnection({ type: 'write' });
    try {
      const q = (sql: string) => (conn as unknown as { query(sql: string): Promise<{ rows: Array<{ v: string | null }> }> }).query(sql);
      await q('BEGIN');
      await q(`SELECT set_config('app.tenant_id', '${a.me.tenantId}', true)`);
      expect((await q("SELECT current_setting('app.tenant_id', true) AS v")).rows[0].v).toBe(a.me.tenantId);
      await q('COMMIT');
      expect((await q("SELECT current_setting('app.tenant_id', true) AS v")).rows[0].v || null).toBeNull();
    } finally {
      stack.db.connectionManager.releaseConnection(conn);
    }
  });

  test('audit events are immutable: UPDATE and DELETE are rejected, even for a superuser', async () => {
    await expect(stack.admin.query("UPDATE audit_events SET details = 'edited' WHERE tenant_id = :a", { replacements: { a: a.me.tenantId } })).rejects.toThrow(
      /append-only/,
    );
    await expect(stack.admin.query('DELETE FROM audit_events WHERE tenant_id = :a', { replacements: { a: a.me.tenantId } })).rejects.toThrow(/append-only/);
    await expect(
      withTenant(stack.db, a.me.tenantId, (tx) => stack.db.query('DELETE FROM audit_events', { transaction: tx })),
    ).rejects.toThrow(/permission denied|append-only/);
  });
});
