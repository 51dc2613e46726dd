import { randomUUID } from 'node:crypto';
import type { Test } from 'supertest';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, PASSWORD, registerWorkspace, type Registered } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { ledgerApi, simpleEntry, waitForClose } from '../../helpers/ledger';
import { createOperationIndex, loadOpenApiDocument } from '../../../contracts/operations';

// Who may call each operation by default. Written out here rather
// than read from the OpenAPI document, so the test checks the document against the contract.
const ALL = ['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER'];
const READERS = ['ADMIN', 'ACCOUNTANT', 'VIEWER'];
const WRITERS = ['ADMIN', 'ACCOUNTANT'];
/** A column profile of a CSV statement: dates, signed amounts, purposes; the account and balances beside labels. */
const PROFILE = {
  headerRow: 1,
  dateFormat: 'DD.MM.YYYY',
  decimalSeparator: ',',
  columns: { date: 'Date', amount: 'Amount', purpose: 'Purpose' },
  statement: { accountNumber: { value: '20208000100100009000' }, openingBalance: { label: 'Opening' }, closingBalance: { label: 'Closing' } },
};
const AUDITORS = ['ADMIN'];
const CLOSERS = ['ADMIN'];
const MEMBER_READERS = ['ADMIN', 'MANAGER'];
const MEMBER_ADMINS = ['ADMIN'];
const COUNTERPARTY_WRITERS = ['ADMIN', 'ACCOUNTANT', 'MANAGER'];
const INVOICE_READERS = ['ADMIN', 'ACCOUNTANT', 'MANAGER', 'VIEWER'];
const INVOICE_DRAFTERS = ['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE'];

let stack: TestStack;
let owner: Registered;
let subaccountId: string;
let entryId: string;
let closeId: string;
let viewerRoleId: string;
let webhookEndpointId: string;
let counterpartyId: string;
let invoiceId: string;
let bankAccountId: string;
const tokens = new Map<string, string>();

beforeAll(async () => {
  stack = await startTestStack();
  owner = await registerWorkspace(stack);
  tokens.set('ADMIN', owner.accessToken);
  for (const role of ALL.filter((r) => r !== 'ADMIN')) tokens.set(role, (await addMember(stack, owner.me.tenantId, [role])).accessToken);
  const created = await api(stack)
    .post(`/api/v1/accounting-settings/${owner.me.company.id}/accounts/5110/subaccounts`)
    .set(...bearer(owner.accessToken))
    .send({ code: 'main', name: 'Main bank', enabled: true })
    .expect(201);
  subaccountId = created.body.id;
  const ledger = ledgerApi(stack, owner);
  entryId = (await ledger.post(simpleEntry('2025-01-10', '10.00')).expect(201)).body.id;
  closeId = (await ledger.close('2024-12-31').expect(202)).body.id;
  await waitForClose(ledger, closeId);
  const roles = await api(stack).get('/api/v1/roles').set(...bearer(owner.accessToken)).expect(200);
  viewerRoleId = roles.body.find((r: { code: string }) => r.code === 'VIEWER').id;
  const endpoint = await api(stack).post('/api/v1/webhooks/endpoints').set(...bearer(owner.accessToken))
    .send({ url: 'http://127.0.0.1:9/permissions', eventTypes: ['webhook.test'] }).expect(201);
  webhookEndpointId = endpoint.body.id;
  const counterparty = await api(stack).post(`/api/v1/counterparties/${owner.me.company.id}`).set(...bearer(owner.accessToken)).send({ name: 'Permission Test Supplier' }).expect(201);
  counterpartyId = counterparty.body.id;
  const invoice = await api(stack).post(`/api/v1/invoices/${owner.me.company.id}`).set(...bearer(owner.accessToken))
    .send({ kind: 'SALES', date: '2025-02-01', counterpartyId, lines: [{ description: 'x', quantity: '1', unitPrice: '1', vatRate: null }] }).expect(201);
  invoiceId = invoice.body.id;
  const bankAccount = await api(stack).post(`/api/v1/bank-accounts/${owner.me.company.id}`).set(...bearer(owner.accessToken))
    .send({ bankCode: '00014', accountNumber: '20208000100100009000', name: 'Permission Test Account' }).expect(201);
  bankAccountId = bankAccount.body.id;
});
afterAll(async () => {
  await stack.stop();
});

type Call = (role: string) => Test;
const company = () => `/api/v1/accounting-settings/${owner.me.company.id}`;
const ledgerBase = () => `/api/v1/ledger/${owner.me.company.id}`;
const codeFor = (role: string) => String(9900 + ALL.indexOf(role) + 1); // a custom code per role: 9901..9905 are free in NAS 21

// Each call is authorised or refused first; an authorised one may still meet a rule after it (a stale
// version, a wrong code, nothing to change), which is a domain 4xx, never 401 or 403.
const OPERATIONS: Array<[string, string[], Call]> = [
  ['getCurrentUser', ALL, () => api(stack).get('/api/v1/me')],
  ['getMyAccess', ALL, () => api(stack).get('/api/v1/me/access')],
  ['listMySessions', ALL, () => api(stack).get('/api/v1/me/sessions')],
  ['revokeMySession', ALL, () => api(stack).delete(`/api/v1/me/sessions/${randomUUID()}`)],
  ['changePassword', ALL, () => api(stack).put('/api/v1/me/password').send({ currentPassword: PASSWORD, newPassword: 'a new password here', confirmPassword: 'does not match it' })],
  ['getSecurityStatus', ALL, () => api(stack).get('/api/v1/me/security')],
  ['getMyEmailStatus', ALL, () => api(stack).get('/api/v1/me/email-status')],
  ['stepUpSession', ALL, () => api(stack).post('/api/v1/me/security/step-up').send({})],
  ['challengeEmailFactorSetting', ALL, () => api(stack).post('/api/v1/me/security/email-factor/challenge').send({ currentPassword: PASSWORD, purpose: 'DISABLE' })],
  [
    'confirmEmailFactorSetting',
    ALL,
    () => api(stack).post('/api/v1/me/security/email-factor/confirm').send({ currentPassword: 'not the password', challengeId: randomUUID(), code: '12345678' }),
  ],
  ['setupTotp', ALL, () => api(stack).post('/api/v1/me/security/totp/setup').send({ currentPassword: PASSWORD })],
  ['confirmTotp', ALL, () => api(stack).post('/api/v1/me/security/totp/confirm').send({ currentPassword: PASSWORD, enrollmentId: randomUUID(), code: '123456' })],
  ['disableTotp', ALL, () => api(stack).post('/api/v1/me/security/totp/disable').send({ currentPassword: PASSWORD, code: '123456' })],
  ['regenerateRecoveryCodes', ALL, () => api(stack).post('/api/v1/me/security/recovery-codes').send({ currentPassword: PASSWORD })],
  ['getAccountingOptions', ALL, () => api(stack).get('/api/v1/accounting-options')],
  ['getCompanyAccountingSettings', READERS, () => api(stack).get(company())],
  [
    'saveCompanyAccountingSettings',
    WRITERS,
    () => api(stack).put(company()).send({ depreciationMethod: 'STRAIGHT_LINE', inventoryValuationMethod: 'FIFO', taxRegime: 'GENERAL', vatRate: 12, expectedVersion: 99 }),
  ],
  ['listCompanyAccounts', READERS, () => api(stack).get(`${company()}/accounts`)],
  ['createCompanyAccount', WRITERS, (role) => api(stack).post(`${company()}/accounts`).send({ code: codeFor(role), name: role, type: 'EXPENSE', enabled: true })],
  ['getCompanyAccount', READERS, () => api(stack).get(`${company()}/accounts/0110`)],
  ['configureCompanyAccount', WRITERS, () => api(stack).put(`${company()}/accounts/0110`).send({ name: 'Land', enabled: true, expectedVersion: 99 })],
  ['listCompanySubaccounts', READERS, () => api(stack).get(`${company()}/accounts/5110/subaccounts`)],
  ['createCompanySubaccount', WRITERS, (role) => api(stack).post(`${company()}/accounts/5110/subaccounts`).send({ code: role, name: role, enabled: true })],
  ['getCompanySubaccount', READERS, () => api(stack).get(`${company()}/accounts/5110/subaccounts/${subaccountId}`)],
  [
    'configureCompanySubaccount',
    WRITERS,
    () => api(stack).put(`${company()}/accounts/5110/subaccounts/${subaccountId}`).send({ name: 'Main', enabled: true, expectedVersion: 99 }),
  ],
  ['listCounterparties', ALL, () => api(stack).get(`/api/v1/counterparties/${owner.me.company.id}`)],
  ['createCounterparty', COUNTERPARTY_WRITERS, (role) => api(stack).post(`/api/v1/counterparties/${owner.me.company.id}`).send({ name: `Supplier of ${role}` })],
  ['getCounterparty', ALL, () => api(stack).get(`/api/v1/counterparties/${owner.me.company.id}/${counterpartyId}`)],
  [
    'updateCounterparty',
    COUNTERPARTY_WRITERS,
    () => api(stack).put(`/api/v1/counterparties/${owner.me.company.id}/${counterpartyId}`).send({ name: 'Supplier', archived: false, expectedVersion: 99 }),
  ],
  [
    'getReconciliationStatement',
    READERS,
    () => api(stack).get(`/api/v1/counterparties/${owner.me.company.id}/${counterpartyId}/reconciliation-statement`).query({ from: '2025-02-01', to: '2025-02-28' }),
  ],
  ['listInvoices', INVOICE_READERS, () => api(stack).get(`/api/v1/invoices/${owner.me.company.id}`)],
  [
    'createInvoice',
    INVOICE_DRAFTERS,
    () => api(stack).post(`/api/v1/invoices/${owner.me.company.id}`).send({ kind: 'SALES', date: '2025-02-01', counterpartyId, lines: [{ description: 'x', quantity: '1', unitPrice: '1', vatRate: null }] }),
  ],
  ['getInvoice', INVOICE_READERS, () => api(stack).get(`/api/v1/invoices/${owner.me.company.id}/${invoiceId}`)],
  [
    'updateInvoice',
    INVOICE_DRAFTERS,
    () => api(stack).put(`/api/v1/invoices/${owner.me.company.id}/${invoiceId}`).send({ date: '2025-02-01', counterpartyId, lines: [{ description: 'x', quantity: '1', unitPrice: '1' }], expectedVersion: 99 }),
  ],
  ['deleteInvoice', INVOICE_DRAFTERS, () => api(stack).delete(`/api/v1/invoices/${owner.me.company.id}/${randomUUID()}`)],
  ['postInvoice', WRITERS, () => api(stack).post(`/api/v1/invoices/${owner.me.company.id}/${randomUUID()}/posting`)],
  ['cancelInvoice', WRITERS, () => api(stack).post(`/api/v1/invoices/${owner.me.company.id}/${randomUUID()}/cancellation`).send({ requestId: randomUUID(), date: '2025-02-02', reason: 'x' })],
  ['getVatRegister', READERS, () => api(stack).get(`${ledgerBase()}/reports/vat-register`).query({ month: '2025-02', side: 'SALES' })],
  ['listPayments', READERS, () => api(stack).get(`/api/v1/payments/${owner.me.company.id}`)],
  [
    'postPayment',
    WRITERS,
    () => api(stack).post(`/api/v1/payments/${owner.me.company.id}`).send({ requestId: randomUUID(), direction: 'IN', date: '2025-02-02', counterpartyId, amount: '1', cashAccount: '5110' }),
  ],
  ['getPayment', READERS, () => api(stack).get(`/api/v1/payments/${owner.me.company.id}/${randomUUID()}`)],
  ['allocatePayment', WRITERS, () => api(stack).post(`/api/v1/payments/${owner.me.company.id}/${randomUUID()}/allocations`).send({ date: '2025-02-02', allocate: 'OLDEST_FIRST' })],
  ['cancelPayment', WRITERS, () => api(stack).post(`/api/v1/payments/${owner.me.company.id}/${randomUUID()}/cancellation`).send({ requestId: randomUUID(), date: '2025-02-02', reason: 'x' })],
  ['listBankAccounts', READERS, () => api(stack).get(`/api/v1/bank-accounts/${owner.me.company.id}`)],
  [
    'createBankAccount',
    WRITERS,
    (role) => api(stack).post(`/api/v1/bank-accounts/${owner.me.company.id}`).send({ bankCode: '00014', accountNumber: `2020800010010000910${ALL.indexOf(role)}`, name: `Account of ${role}` }),
  ],
  ['getBankAccount', READERS, () => api(stack).get(`/api/v1/bank-accounts/${owner.me.company.id}/${bankAccountId}`)],
  [
    'updateBankAccount',
    WRITERS,
    () => api(stack).put(`/api/v1/bank-accounts/${owner.me.company.id}/${bankAccountId}`).send({ bankCode: '00014', accountNumber: '20208000100100009000', name: 'x', archived: false, expectedVersion: 99 }),
  ],
  [
    'importBankStatement',
    WRITERS,
    (role) => api(stack).post(`/api/v1/bank-accounts/${owner.me.company.id}/${bankAccountId}/statements`).set('Content-Type', 'text/plain').send(Buffer.from(`not a statement of ${role}`)),
  ],
  ['getBankStatementImport', READERS, () => api(stack).get(`/api/v1/bank-accounts/${owner.me.company.id}/${bankAccountId}/statements/${randomUUID()}`)],
  ['listBankLines', READERS, () => api(stack).get(`/api/v1/bank-accounts/${owner.me.company.id}/${bankAccountId}/lines`)],
  ['matchBankLine', WRITERS, () => api(stack).post(`/api/v1/bank-accounts/${owner.me.company.id}/${bankAccountId}/lines/${randomUUID()}/match`).send({ acceptProposal: true })],
  ['unmatchBankLine', WRITERS, () => api(stack).post(`/api/v1/bank-accounts/${owner.me.company.id}/${bankAccountId}/lines/${randomUUID()}/unmatch`)],
  ['getBankReconciliation', READERS, () => api(stack).get(`/api/v1/ledger/${owner.me.company.id}/reports/bank-reconciliation`).query({ bankAccountId, asOf: '2025-02-28' })],
  ['listBankMatchingRules', WRITERS, () => api(stack).get(`/api/v1/bank-matching-rules/${owner.me.company.id}`)],
  [
    'createBankMatchingRule',
    WRITERS,
    (role) => api(stack).post(`/api/v1/bank-matching-rules/${owner.me.company.id}`).send({ name: `Fees of ${role}`, priority: 1, conditions: {}, action: { type: 'POST_TO_ACCOUNT', accountCode: '9430' } }),
  ],
  [
    'updateBankMatchingRule',
    WRITERS,
    () => api(stack).put(`/api/v1/bank-matching-rules/${owner.me.company.id}/${randomUUID()}`).send({ name: 'x', priority: 1, enabled: true, conditions: {}, action: { type: 'SETTLE_INVOICES' }, expectedVersion: 1 }),
  ],
  ['deleteBankMatchingRule', WRITERS, () => api(stack).delete(`/api/v1/bank-matching-rules/${owner.me.company.id}/${randomUUID()}`)],
  ['listBankStatementProfiles', WRITERS, () => api(stack).get(`/api/v1/bank-statement-profiles/${owner.me.company.id}`)],
  [
    'createBankStatementProfile',
    WRITERS,
    (role) => api(stack).post(`/api/v1/bank-statement-profiles/${owner.me.company.id}`).send({ name: `Profile of ${role}`, profile: PROFILE }),
  ],
  ['updateBankStatementProfile', WRITERS, () => api(stack).put(`/api/v1/bank-statement-profiles/${owner.me.company.id}/${randomUUID()}`).send({ name: 'x', profile: PROFILE, expectedVersion: 1 })],
  ['deleteBankStatementProfile', WRITERS, () => api(stack).delete(`/api/v1/bank-statement-profiles/${owner.me.company.id}/${randomUUID()}`)],
  ['listFixedAssets', READERS, () => api(stack).get(`/api/v1/fixed-assets/${owner.me.company.id}`)],
  [
    'createFixedAsset',
    WRITERS,
    (role) => api(stack).post(`/api/v1/fixed-assets/${owner.me.company.id}`).send({ inventoryNumber: `INV-${role}`, name: `Laptop of ${role}`, assetAccount: '0150', cost: '12000000', usefulLifeMonths: 36 }),
  ],
  ['getFixedAsset', READERS, () => api(stack).get(`/api/v1/fixed-assets/${owner.me.company.id}/${randomUUID()}`)],
  [
    'updateFixedAsset',
    WRITERS,
    () => api(stack).put(`/api/v1/fixed-assets/${owner.me.company.id}/${randomUUID()}`).send({ inventoryNumber: 'x', name: 'x', assetAccount: '0150', cost: '1', usefulLifeMonths: 1, expectedVersion: 1 }),
  ],
  ['commissionFixedAsset', WRITERS, () => api(stack).post(`/api/v1/fixed-assets/${owner.me.company.id}/${randomUUID()}/commissioning`).send({ date: '2025-02-01', expectedVersion: 1 })],
  ['getDepreciationSchedule', READERS, () => api(stack).get(`/api/v1/fixed-assets/${owner.me.company.id}/${randomUUID()}/schedule`)],
  ['disposeFixedAsset', WRITERS, () => api(stack).post(`/api/v1/fixed-assets/${owner.me.company.id}/${randomUUID()}/disposal`).send({ date: '2025-02-01', expectedVersion: 1 })],
  ['getFixedAssetRegister', READERS, () => api(stack).get(`/api/v1/ledger/${owner.me.company.id}/reports/fixed-assets`).query({ asOf: '2025-02-28' })],
  ['getCompanyOverview', READERS, () => api(stack).get(`/api/v1/ledger/${owner.me.company.id}/overview`).query({ asOf: '2025-02-28' })],
  ['getAgingReport', READERS, () => api(stack).get(`/api/v1/ledger/${owner.me.company.id}/reports/aging`).query({ asOf: '2025-02-28', side: 'RECEIVABLE' })],
  ['listAuditEvents', AUDITORS, () => api(stack).get('/api/v1/audit-events')],
  ['listAuditActors', AUDITORS, () => api(stack).get('/api/v1/audit-events/actors')],
  ['listAuditActions', AUDITORS, () => api(stack).get('/api/v1/audit-events/actions')],
  ['getAuditStatistics', AUDITORS, () => api(stack).get('/api/v1/audit-events/statistics')],
  ['postJournalEntry', WRITERS, () => api(stack).post(`${ledgerBase()}/entries`).send(simpleEntry('2025-01-11', '1.00'))],
  ['listJournalEntries', READERS, () => api(stack).get(`${ledgerBase()}/entries`)],
  ['getJournalEntry', READERS, () => api(stack).get(`${ledgerBase()}/entries/${entryId}`)],
  [
    'reverseJournalEntry',
    WRITERS,
    () => api(stack).post(`${ledgerBase()}/entries/${entryId}/reversal`).send({ requestId: randomUUID(), entryDate: '2025-01-12', reason: 'test' }),
  ],
  ['getTrialBalance', READERS, () => api(stack).get(`${ledgerBase()}/trial-balance`).query({ asOf: '2025-01-31' })],
  ['listPeriodCloses', READERS, () => api(stack).get(`${ledgerBase()}/periods`)],
  ['closePeriod', CLOSERS, () => api(stack).post(`${ledgerBase()}/periods/close`).send({ requestId: randomUUID(), closeDate: '2024-12-31' })],
  ['getPeriodClose', READERS, () => api(stack).get(`${ledgerBase()}/periods/${closeId}`)],
  // Closed through 2024-12-31: an allowed role's request is 409 period-closed, a refused one 403.
  ['postRevaluation', WRITERS, () => api(stack).post(`${ledgerBase()}/revaluations`).send({ revaluationDate: '2024-11-30' })],
  ['listRevaluations', READERS, () => api(stack).get(`${ledgerBase()}/revaluations`)],
  ['getBalanceSheet', READERS, () => api(stack).get(`${ledgerBase()}/reports/balance-sheet`).query({ asOf: '2025-01-31' })],
  ['getFinancialResults', READERS, () => api(stack).get(`${ledgerBase()}/reports/financial-results`).query({ from: '2025-01-01', to: '2025-01-31' })],
  ['getTurnoverSheet', READERS, () => api(stack).get(`${ledgerBase()}/reports/turnover-sheet`).query({ from: '2025-01-01', to: '2025-01-31' })],
  ['getAccountStatement', READERS, () => api(stack).get(`${ledgerBase()}/reports/account-statement`).query({ accountCode: '5110', from: '2025-01-01', to: '2025-01-31' })],
  ['getRevaluation', READERS, () => api(stack).get(`${ledgerBase()}/revaluations/${randomUUID()}`)],
  ['listUsers', MEMBER_READERS, () => api(stack).get('/api/v1/users')],
  ['getUser', MEMBER_READERS, () => api(stack).get(`/api/v1/users/${owner.me.membershipId}`)],
  ['updateUser', MEMBER_ADMINS, () => api(stack).put(`/api/v1/users/${owner.me.membershipId}`).send({ displayName: 'x', role: 'ADMIN', status: 'ACTIVE', lockVersion: 99 })],
  ['removeUser', MEMBER_ADMINS, () => api(stack).delete(`/api/v1/users/${owner.me.membershipId}`).send({ lockVersion: 99 })],
  ['listRoles', MEMBER_ADMINS, () => api(stack).get('/api/v1/roles')],
  ['getRole', MEMBER_ADMINS, () => api(stack).get(`/api/v1/roles/${viewerRoleId}`)],
  ['updateRolePermissions', MEMBER_ADMINS, () => api(stack).put(`/api/v1/roles/${viewerRoleId}/permissions`).send({ lockVersion: 99, permissions: [] })],
  ['resetRolePermissions', MEMBER_ADMINS, () => api(stack).post(`/api/v1/roles/${viewerRoleId}/permissions/reset`).send({ lockVersion: 99 })],
  ['listPermissions', MEMBER_ADMINS, () => api(stack).get('/api/v1/permissions')],
  ['createInvitation', MEMBER_ADMINS, (role) => api(stack).post('/api/v1/membership-invitations?delivery=MANUAL').send({ email: `invitee-${role.toLowerCase()}@example.com`, roles: ['VIEWER'] })],
  ['revokeInvitation', MEMBER_ADMINS, () => api(stack).delete(`/api/v1/membership-invitations/${randomUUID()}`)],
  ['completeOnboarding', MEMBER_ADMINS, () => api(stack).put('/api/v1/company').send({ name: 'Permission Test LLC', taxId: '301234567' })],
  ['registerDevice', ALL, (role) => api(stack).post('/api/v1/notifications/devices').send({ token: `permission-test-device-${role}-0123456789` })],
  ['removeDevice', ALL, () => api(stack).delete(`/api/v1/notifications/devices/${randomUUID()}`)],
  ['sendNotification', MEMBER_READERS, () => api(stack).post('/api/v1/notifications/messages').send({ recipientMembershipId: owner.me.membershipId, requestId: randomUUID(), title: 't', body: 'b' })],
  ['getNotificationStatus', MEMBER_READERS, () => api(stack).get(`/api/v1/notifications/messages/${randomUUID()}`)],
  ['listRates', ALL, () => api(stack).get('/api/v1/rates')],
  ['refreshRates', MEMBER_ADMINS, () => api(stack).post('/api/v1/rates/refresh')],
  ['listWebhookEventTypes', ALL, () => api(stack).get('/api/v1/webhooks/event-types')],
  ['createWebhookEndpoint', MEMBER_ADMINS, (role) => api(stack).post('/api/v1/webhooks/endpoints').send({ url: `http://127.0.0.1:9/${role}`, eventTypes: ['webhook.test'] })],
  ['listWebhookEndpoints', MEMBER_ADMINS, () => api(stack).get('/api/v1/webhooks/endpoints')],
  ['getWebhookEndpoint', MEMBER_ADMINS, () => api(stack).get(`/api/v1/webhooks/endpoints/${webhookEndpointId}`)],
  [
    'updateWebhookEndpoint',
    MEMBER_ADMINS,
    () => api(stack).put(`/api/v1/webhooks/endpoints/${webhookEndpointId}`).send({ url: 'http://127.0.0.1:9/x', eventTypes: ['webhook.test'], enabled: true, lockVersion: 99 }),
  ],
  ['deleteWebhookEndpoint', MEMBER_ADMINS, () => api(stack).delete(`/api/v1/webhooks/endpoints/${randomUUID()}`)],
  ['rotateWebhookEndpointSecret', MEMBER_ADMINS, () => api(stack).post(`/api/v1/webhooks/endpoints/${webhookEndpointId}/secret`)],
  ['listWebhookDeliveries', MEMBER_ADMINS, () => api(stack).get(`/api/v1/webhooks/endpoints/${webhookEndpointId}/deliveries`)],
  ['retryWebhookDelivery', MEMBER_ADMINS, () => api(stack).post(`/api/v1/webhooks/endpoints/${webhookEndpointId}/deliveries/${randomUUID()}/retry`)],
  ['sendWebhookTestEvent', MEMBER_ADMINS, () => api(stack).post(`/api/v1/webhooks/endpoints/${webhookEndpointId}/test`)],
  // Last: once the ADMIN has archived the company, the other roles are still refused by permission first.
  ['archiveCompany', MEMBER_ADMINS, () => api(stack).post('/api/v1/company/archive')],
];

const CASES = OPERATIONS.flatMap(([operation, allowed, call]) => ALL.map((role) => [operation, role, allowed.includes(role), call] as const));

describe('default role permissions of every bearer operation, for each of the five roles', () => {
  test.each(CASES)('%s as %s: allowed = %s', async (operation, role, allowed, call) => {
    const res = await call(role).set(...bearer(tokens.get(role)!));
    if (allowed) {
      expect({ operation, role, status: res.status, authorised: res.status < 500 && res.status !== 401 && res.status !== 403 }).toEqual({
        operation,
        role,
        status: res.status,
        authorised: true,
      });
    } else {
      expect({ operation, role, status: res.status }).toEqual({ operation, role, status: 403 });
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ type: '/problems/permission-denied', permission: operation });
    }
  });

  test('every bearer operation of the document is in this table', () => {
    const bearerOperations = createOperationIndex(loadOpenApiDocument()).operations.filter((op) => op.requiresBearer).map((op) => op.operationId);
    expect(OPERATIONS.map(([id]) => id).sort()).toEqual([...bearerOperations].sort());
  });

  test('the permissions are seeded per workspace from the document: GET /me/access lists them for a VIEWER', async () => {
    const res = await api(stack).get('/api/v1/me/access').set(...bearer(tokens.get('VIEWER')!)).expect(200);
    expect(res.body.roles).toEqual(['VIEWER']);
    expect(res.body.permissions).toEqual(expect.arrayContaining(['getAccountingOptions', 'listCompanyAccounts', 'getCompanySubaccount']));
    expect(res.body.permissions).not.toContain('saveCompanyAccountingSettings');
    expect(res.body.permissions).not.toContain('listAuditEvents');
  });
});
