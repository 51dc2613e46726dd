// The console's Bank section, the second part, with its own stack as browser-bank.test.ts has: matching rules added,
// refused at their fields, disabled (and refused when stale) and deleted; a CSV export imported with its column
// profile (the profile picker shown and required for a spreadsheet); and the account reconciled at a date: the
// difference before the books have the opening balance, then 0.00 as lines are matched. Screenshots land in
// test/.tmp/screenshots (look at them when the section changes).
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import type { TestStack } from '../../helpers/stack';
import { clickFor, grouped, problemsOf, startBrowserStack, submitLogin, until, type BrowserStack } from '../../helpers/browser';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { aCounterparty, invoicesApi, saveTaxSettings, salesBody } from '../../helpers/invoices';
import { createBankAccount } from '../../helpers/bank-accounts';
import { ledgerApi, simpleEntry } from '../../helpers/ledger';
import { statement } from '../../unit/bank-statements/fixture';
import { csvProfile, renderCsv } from '../../unit/bank-statements/render';

let web: BrowserStack;
let stack: TestStack;
beforeAll(async () => {
  web = await startBrowserStack();
  ({ stack } = web);
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

const shot = (page: Page, name: string) => web.shot(page, name);

/** Rules added and changed, a statement imported and lines matched through the page: on two shared cores, minutes. */
const BANK_RULES_MS = 240_000;

const lines = '#bank-lines table.bank-lines';
const row = (page: Page, amount: string) => page.locator(`${lines} tr[data-id]`).filter({ has: page.locator(`td.num:text-is("${grouped(amount)}")`) }).first();
const statusBecomes = async (page: Page, amount: string, status: string) => expect(await until(() => row(page, amount).getAttribute('data-status'), (s) => s === status)).toBe(status);
/** The reconciliation's figure under `id`, as the page shows it. */
const figure = (page: Page, id: string) => page.textContent(`#bank-reconciliation #${id}`);
const unexplainedBecomes = async (page: Page, amount: string) =>
  expect(await until(() => page.getAttribute('#bank-rec-unexplained', 'data-unexplained'), (v) => v === amount)).toBe(amount);
const ruleNames = (page: Page) => page.locator('#bank-rules tr[data-id] td.name').allTextContents();

describe('the bank section in the console: rules, column profiles, reconciliation', () => {
  test('a rule refused at its fields then added, listed by priority, disabled, refused when stale, deleted; a CSV imported with its profile; the account reconciled to 0.00 as its lines are matched', async () => {
    const user = await registerWorkspace(stack);
    await saveTaxSettings(stack, user);
    const received = statement.lines[0]!;
    const customer = await aCounterparty(stack, user, { name: 'Тошкент Савдо', tin: received.counterpartyTin });
    const invoices = invoicesApi(stack, user);
    const draft = (await invoices.create({ ...salesBody(customer, '2026-11-01'), lines: [{ description: 'Goods', quantity: '1', unitPrice: '4500000.00', vatRate: null }] }).expect(201)).body as { id: string };
    await invoices.post(draft.id).expect(200);
    await createBankAccount(stack, user, { bankCode: statement.bankCode, accountNumber: statement.accountNumber, name: 'Kapitalbank UZS' }).expect(201);
    const auth = bearer(user.accessToken);
    const profiles = `/api/v1/bank-statement-profiles/${user.me.company.id}`;
    const rulesBase = `/api/v1/bank-matching-rules/${user.me.company.id}`;
    // Two profiles, so that the picker has a choice to make.
    const kapital = (await api(stack).post(profiles).set(...auth).send({ name: 'Kapitalbank CSV', profile: csvProfile }).expect(201)).body as { id: string };
    await api(stack).post(profiles).set(...auth).send({ name: 'Another bank CSV', profile: { ...csvProfile, headerRow: 1 } }).expect(201);

    const page = await web.newPage();
    const sent: Array<{ url: URL; contentType: string | undefined; body: unknown }> = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (['POST', 'PUT'].includes(req.method()) && /^\/api\/v1\/bank-/.test(url.pathname)) {
        const json = req.headers()['content-type'] === 'application/json';
        sent.push({ url, contentType: req.headers()['content-type'], body: json ? req.postDataJSON() : null });
      }
    });
    await submitLogin(web, page, user);
    await page.waitForSelector('#roles');
    await page.click('nav.tabs a[href="#bank"]');
    await page.waitForSelector('#bank-account-list tr[data-id]');

    // The rules: none yet. A fee rule whose pattern RE2 cannot take is refused at that field by the API; a
    // tolerance without an amount is refused on the page before anything is sent.
    await page.click('#open-bank-rules');
    await page.waitForSelector('#bank-rules p:text-matches("^No rules yet")');
    await page.click('#new-bank-rule');
    await page.fill('#bank-rule-form input[name=name]', 'Bank fees');
    await page.fill('#bank-rule-form input[name=priority]', '10');
    await page.selectOption('#bank-rule-form select[name=direction]', 'OUT');
    await page.fill('#bank-rule-form input[name=amountTolerance]', '100');
    await page.fill('#bank-rule-form input[name=purposePattern]', '(комисси');
    await page.selectOption('#bank-rule-form select[name=actionType]', 'POST_TO_ACCOUNT');
    await page.fill('#bank-rule-form input[name=accountCode]', '9430');
    const before = sent.length;
    await page.click('#bank-rule-form button[type=submit]');
    await page.waitForSelector('#bank-rule-conditions-amountTolerance-error:not([hidden])');
    expect(await page.textContent('#bank-rule-conditions-amountTolerance-error')).toBe('A tolerance is around an amount: type the amount too.');
    expect(sent.length).toBe(before);
    await page.fill('#bank-rule-form input[name=amountTolerance]', '');
    const refused = await clickFor(page, '#bank-rule-form button[type=submit]', 'POST', /\/bank-matching-rules\/[^/]+$/);
    expect(refused.status).toBe(400);
    await page.waitForSelector('#bank-rule-conditions-purposePattern-error:not([hidden])');
    expect(await page.getAttribute('#bank-rule-form input[name=purposePattern]', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#bank-rule-conditions-purposePattern-error')).toContain('not an RE2 regular expression');
    await shot(page, '70-bank-rule-refused');
    await page.fill('#bank-rule-form input[name=purposePattern]', 'комисси');
    expect(await page.getAttribute('#bank-rule-form input[name=purposePattern]', 'aria-invalid')).toBeNull();
    const added = await clickFor(page, '#bank-rule-form button[type=submit]', 'POST', /\/bank-matching-rules\/[^/]+$/);
    expect(added.status).toBe(201);
    expect(sent.at(-1)!.body).toEqual({ name: 'Bank fees', priority: 10, enabled: true, conditions: { direction: 'OUT', purposePattern: 'комисси' }, action: { type: 'POST_TO_ACCOUNT', accountCode: '9430' }, autoConfirm: false });
    await page.waitForSelector('#bank-rules tr[data-id]');
    expect(await page.textContent('#alert')).toBe('Added the rule “Bank fees”: it is tried on the lines of the next import.');

    // A second rule, with an amount and its tolerance, of a priority tried before the fees.
    await page.click('#new-bank-rule');
    await page.fill('#bank-rule-form input[name=name]', 'Rent around 1.2 million');
    await page.fill('#bank-rule-form input[name=priority]', '5');
    await page.fill('#bank-rule-form input[name=counterpartyTin]', '305111222');
    await page.fill('#bank-rule-form input[name=amountEquals]', '1 200 000');
    await page.fill('#bank-rule-form input[name=amountTolerance]', '1.00');
    await page.fill('#bank-rule-form input[name=purposeContains]', 'аренда');
    // The rent is paid without waiting for a person.
    await page.check('#bank-rule-form input[name=autoConfirm]');
    expect((await clickFor(page, '#bank-rule-form button[type=submit]', 'POST', /\/bank-matching-rules\/[^/]+$/)).status).toBe(201);
    expect(sent.at(-1)!.body).toEqual({ name: 'Rent around 1.2 million', priority: 5, enabled: true,
      conditions: { counterpartyTin: '305111222', amountEquals: '1200000', amountTolerance: '1.00', purposeContains: 'аренда' }, action: { type: 'SETTLE_INVOICES' }, autoConfirm: true });
    expect(await until(() => ruleNames(page), (names) => names.length === 2)).toEqual(['Rent around 1.2 million', 'Bank fees']);
    const rules = page.locator('#bank-rules tr[data-id]');
    expect(await rules.first().locator('td.priority').textContent()).toBe('5');
    expect(await rules.first().locator('td.conditions div').allTextContents()).toEqual(['TIN 305111222', `Amount ${grouped('1200000')} ± 1.00`, 'Purpose contains “аренда”']);
    expect(await rules.nth(1).locator('td.conditions div').allTextContents()).toEqual(['Money paid', 'Purpose matches /комисси/']);
    expect(await rules.nth(1).locator('td.action').textContent()).toBe('Propose posting to account 9430');
    expect(await rules.first().locator('td.action .auto-confirm').textContent()).toBe('confirmed by itself at import');
    await shot(page, '71-bank-rules');

    // Disabled from its row (its version sent); then changed through the API meanwhile, so enabling it again is stale.
    const rent = page.locator('#bank-rules tr[data-id]').first();
    const rentId = (await rent.getAttribute('data-id'))!;
    expect((await clickFor(page, '#bank-rules tr[data-id]:first-child button[data-action=disable]', 'PUT', /\/bank-matching-rules\//)).status).toBe(200);
    expect(sent.at(-1)!.body).toMatchObject({ enabled: false, autoConfirm: true, expectedVersion: 1 });
    await page.waitForSelector(`#bank-rules tr[data-id="${rentId}"][data-enabled=false]`);
    expect(await page.textContent('#alert')).toBe('Disabled the rule “Rent around 1.2 million”.');
    const stored = (await api(stack).get(rulesBase).set(...auth).expect(200)).body.items[0] as Record<string, unknown>;
    await api(stack).put(`${rulesBase}/${rentId}`).set(...auth).send({ name: stored.name, priority: 6, enabled: false, conditions: stored.conditions, action: stored.action, expectedVersion: 2 }).expect(200);
    const stale = await clickFor(page, `#bank-rules tr[data-id="${rentId}"] button[data-action=enable]`, 'PUT', /\/bank-matching-rules\//);
    expect(stale.status).toBe(409);
    expect(await page.textContent('#alert')).toBe('Not enabled: the rule was changed by someone else meanwhile. The rules are read again: look at it as it is now.');
    expect(await until(() => page.locator(`#bank-rules tr[data-id="${rentId}"] td.priority`).textContent(), (p) => p === '6')).toBe('6');
    // Deleted, asked twice.
    await page.click(`#bank-rules tr[data-id="${rentId}"] button[data-action=delete]`);
    expect((await clickFor(page, `#bank-rules tr[data-id="${rentId}"] button[data-action=confirm-delete]`, 'DELETE', /\/bank-matching-rules\//)).status).toBe(204);
    expect(await until(() => ruleNames(page), (names) => names.length === 1)).toEqual(['Bank fees']);
    await page.click('button:text-is("← All bank accounts")');

    // The CSV export: its profile shown and required once a .csv is chosen, sent as text/csv with ?profileId=.
    await page.click('#bank-account-list button[data-action=open]');
    await page.waitForSelector('#bank-lines p:text-is("No lines yet: import the account’s statement.")');
    expect(await page.isHidden('#bank-statement-profile-field')).toBe(true);
    await page.setInputFiles('#bank-statement-file', { name: 'kapitalbank-2026-11.csv', mimeType: 'text/csv', buffer: renderCsv(statement) });
    await page.waitForSelector('#bank-statement-profile-field:not([hidden])');
    expect(await until(() => page.locator('#bank-statement-profile option').allTextContents(), (o) => o.length === 3)).toEqual(['Choose…', 'Another bank CSV', 'Kapitalbank CSV']);
    const count = sent.length;
    await page.click('#bank-import-form button[type=submit]');
    await page.waitForSelector('#bank-statement-profile-error:not([hidden])');
    expect(await page.textContent('#bank-statement-profile-error')).toBe('Choose the column profile kapitalbank-2026-11.csv is read with.');
    expect(sent.length).toBe(count);
    await shot(page, '74-bank-import-profile');
    await page.selectOption('#bank-statement-profile', kapital.id);
    const imported = await clickFor(page, '#bank-import-form button[type=submit]', 'POST', /\/statements$/);
    expect(imported.status).toBe(202);
    expect(sent.at(-1)!.contentType).toBe('text/csv');
    expect(sent.at(-1)!.url.searchParams.get('profileId')).toBe(kapital.id);
    await page.waitForSelector('#bank-import-status[data-status=COMPLETED]', { timeout: 60_000 });
    expect(await page.textContent('#bank-import')).toContain('CSV · 2026-11-03 to 2026-11-20');
    expect(await page.isHidden('#bank-statement-profile-field')).toBe(true);
    // The fee rule proposed both fees to 9430; the customer's payment proposed by its TIN and amount.
    await page.waitForSelector(`${lines} tr[data-id]`);
    expect(await until(() => page.locator(`${lines} tr[data-status=PROPOSED]`).count(), (n) => n === 3)).toBe(3);
    expect(await row(page, '5000.00').locator('.proposal-account').textContent()).toBe('Post to account 9430');

    // Reconciled at the last line's day: the books have none of the opening balance, so 1 250 000.00 is unexplained.
    await page.waitForSelector('#bank-reconciliation .unexplained');
    expect(await page.inputValue('#bank-reconciliation-form input[name=asOf]')).toBe('2026-11-20');
    await unexplainedBecomes(page, '1250000.00');
    expect(await page.getAttribute('#bank-rec-unexplained', 'class')).toBe('unexplained differs');
    expect(await figure(page, 'bank-rec-statement')).toBe(`${grouped(statement.closingBalance)} UZS`);
    expect(await figure(page, 'bank-rec-ledger')).toBe(`${grouped('0.00')} UZS`);
    expect(await page.locator('#bank-rec-statement-list tbody tr').count()).toBe(4);
    expect(await page.textContent('#bank-rec-statement-list tfoot td[data-total]')).toBe(grouped((Number(statement.closingBalance) - Number(statement.openingBalance)).toFixed(2)));
    await shot(page, '72-bank-reconciliation-differs');

    // The opening balance posted, and a receipt the bank has not reported: 0.00, the receipt the one ledger line.
    const ledger = ledgerApi(stack, user);
    await ledger.post(simpleEntry('2026-10-31', statement.openingBalance, '5110', '8710')).expect(201);
    await ledger.post(simpleEntry('2026-11-10', '100000.00', '5110', '8710')).expect(201);
    await clickFor(page, '#bank-reconciliation-form button[type=submit]', 'GET', /\/reports\/bank-reconciliation$/);
    await unexplainedBecomes(page, '0.00');
    expect(await page.getAttribute('#bank-rec-unexplained', 'class')).toBe('unexplained agreed');
    expect(await page.textContent('#bank-rec-unexplained .amount')).toBe('0.00 UZS');
    expect(await page.locator('#bank-rec-ledger-list tbody tr td').allTextContents()).toEqual(['2026-11-10', expect.any(String), expect.any(String), grouped('100000.00')]);
    expect(await figure(page, 'bank-rec-ledger-lines')).toBe(`${grouped('100000.00')} UZS`);

    // The customer's payment and the fees confirmed on their rows: the reconciliation is read again, the rent left.
    for (const amount of ['4500000.00', '5000.00', '5000.00']) {
      await clickFor(page, `${lines} tr[data-status=PROPOSED]:has(td.num:text-is("${grouped(amount)}")) button[data-action=confirm]`, 'POST', /\/match$/);
      if (amount === '4500000.00') await statusBecomes(page, amount, 'MATCHED');
    }
    expect(await until(() => page.locator('#bank-rec-statement-list tbody tr').count(), (n) => n === 1)).toBe(1);
    await unexplainedBecomes(page, '0.00');
    expect(await page.locator('#bank-rec-statement-list tbody tr td').allTextContents()).toEqual(['2026-11-05', statement.lines[1]!.counterpartyName, statement.lines[1]!.purpose, 'Unmatched', grouped('-1200000.50')]);
    expect(await figure(page, 'bank-rec-statement-lines')).toBe(`${grouped('-1200000.50')} UZS`);
    await page.locator('#bank-reconciliation-heading').scrollIntoViewIfNeeded();
    await shot(page, '73-bank-reconciliation-agreed');

    // The unmatched lines as CSV, under the API's name.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#section-bank .bank-reconciliation button.download[data-format=csv]')]);
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);
    const records = parse(readFileSync((await csv.path())!), { columns: true, bom: true }) as Array<Record<string, string>>;
    expect(records.map((r) => [r.side, r.amount])).toEqual(expect.arrayContaining([['STATEMENT', '-1200000.50'], ['LEDGER', '100000.00']]));
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.click('#section-bank .bank-reconciliation button.download[data-format=xlsx]')]);
    expect(readFileSync((await xlsx.path())!).subarray(0, 2).toString()).toBe('PK');
    expect(problemsOf(page)).toEqual([]);
  }, BANK_RULES_MS);
});
