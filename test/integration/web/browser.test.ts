// The web pages as a person uses them: Debian's Chromium driven by playwright-core, against the real app
// listening on a port, its worker, PostgreSQL and Temporal. Screenshots of every page land in
// test/.tmp/screenshots (look at them when a page changes).
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { QueryTypes } from 'sequelize';
import type { TestStack } from '../../helpers/stack';
import { grouped, problemsOf, startBrowserStack, submitLogin, until, type BrowserStack } from '../../helpers/browser';
import { PASSWORD, api, bearer, readMail, registerWorkspace, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { codeFrom, enableEmailFactor, enableTotp, mailCount, totpCode } from '../../helpers/second-factors';
import { storeCbuRate } from '../../helpers/currency';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { formatMinorUnits, numericToMinorUnits } from '../../../core/ledger/money';

let web: BrowserStack;
let stack: TestStack;
let port: number;
beforeAll(async () => {
  web = await startBrowserStack();
  ({ stack, port } = web);
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

const workspaceUrl = (slug: string, path: string) => web.workspaceUrl(slug, path);
const newPage = () => web.newPage();
const shot = (page: Page, name: string) => web.shot(page, name);

/** An amount the console shows, read back as the API's decimal. */
const plain = (text: string): string => text.replaceAll('\u202F', '');

/**
 * Chooses an account with the picker of the posting form's line `i`: its code typed and Enter pressed, which takes
 * the account of that code once the search answers.
 */
async function pickAccount(page: Page, i: number, code: string): Promise<void> {
  const box = page.locator('form#post-entry tbody tr').nth(i).locator('input[data-picker=accountCode]');
  await box.fill(code);
  await box.press('Enter');
  expect(await until(() => box.inputValue(), (text) => text.startsWith(`${code} `))).toMatch(new RegExp(`^${code} \\S`));
}

// This file's CBU rates are dated 2011, a year no other file uses (the rates are shared by every file of a run).

const logIn = (page: Page, user: Registered) => submitLogin(web, page, user);

describe('web pages in a real browser', () => {
  test('registration from the mailed link: password twice and a company, then the workspace address', async () => {
    const email = uniqueEmail('browser');
    await api(stack).post('/api/v1/auth/magic-link/request').send({ email }).expect(202);
    const [mail] = await waitForMail(stack, email);
    const link = /(http:\/\/\S+\/register\?\S+)/.exec(mail!.text)![1]!;
    expect(link.startsWith(`http://localhost:${port}/register?token=`)).toBe(true);
    const page = await newPage();
    await page.goto(link);
    expect(await page.inputValue('input[name=email]')).toBe(email);
    expect(new URL(page.url()).search).toBe(''); // the magic link's token left the address bar
    await shot(page, '01-register');
    await page.fill('input[name=password]', PASSWORD);
    await page.fill('input[name=confirmPassword]', 'a different password of length');
    await page.click('button[type=submit]');
    await expect(page.textContent('#alert')).resolves.toContain('The two passwords differ');
    await page.fill('input[name=confirmPassword]', PASSWORD);
    await page.fill('input[name=companyName]', 'Browser Test LLC');
    await page.fill('input[name=taxId]', '123456789');
    await page.click('button[type=submit]');
    await page.waitForSelector('#done:not([hidden])');
    expect(await page.isVisible('form#register')).toBe(false);
    const href = await page.getAttribute('#workspace-link', 'href');
    expect(href).toMatch(new RegExp(`^http://[a-z0-9-]+\\.localhost:${port}/login$`));
    await shot(page, '02-registered');
    // The address works: the login page of the new workspace.
    await page.goto(href!);
    await page.waitForSelector('form#login');
    expect(problemsOf(page)).toEqual([]);
  });

  test('registration by a person with email codes on: the page hands the mailed challenge to the new workspace\'s login', async () => {
    const existing = await registerWorkspace(stack);
    await enableEmailFactor(stack, existing);
    const before = await mailCount(stack, existing.email);
    await api(stack).post('/api/v1/auth/magic-link/request').send({ email: existing.email }).expect(202);
    const link = /(http:\/\/\S+\/register\?\S+)/.exec((await waitForMail(stack, existing.email, before + 1))[0]!.text)![1]!;
    const page = await newPage();
    await page.goto(link);
    await page.fill('input[name=password]', existing.password);
    await page.fill('input[name=confirmPassword]', existing.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('#second-factor:not([hidden])');
    expect(await page.isVisible('form#register')).toBe(false);
    await shot(page, '14-register-second-factor');
    await page.click('#factor-link');
    await page.waitForSelector('form#factor input[name=password]');
    expect(new URL(page.url()).hash).toBe(''); // the hand-off left the address bar
    const mail = await waitForMail(stack, existing.email, before + 2);
    await page.fill('input[name=password]', existing.password);
    await page.fill('input[name=code]', codeFrom(mail[0]!));
    await page.click('form#factor button[type=submit]');
    await page.waitForSelector('#roles');
    expect(await page.textContent('#roles')).toBe('ADMIN');
    expect(new URL(page.url()).hostname).not.toBe(`${existing.me.company.slug}.localhost`);
    expect(problemsOf(page)).toEqual([]);
  });

  test('log in with a password, post a balanced entry, see it in the trial balance, close the period to COMPLETED', async () => {
    const user = await registerWorkspace(stack);
    const page = await newPage();
    await page.goto(workspaceUrl(user.me.company.slug, '/login'));
    await shot(page, '03-login');
    await page.fill('input[name=email]', user.email);
    await page.fill('input[name=password]', 'not the password at all');
    await page.click('button[type=submit]');
    await page.waitForSelector('#alert:not([hidden])');
    expect(await page.textContent('#alert')).toMatch(/\S/);
    await page.fill('input[name=password]', user.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('#roles');
    expect(await page.textContent('#roles')).toBe('ADMIN');
    await shot(page, '04-console-overview');

    await page.click('text=Chart of accounts');
    await page.fill('input[name=q]', '5110');
    await page.click('form[role=search] button');
    await page.waitForSelector('td:text-is("5110")');
    await shot(page, '05-accounts');

    await page.click('text=Journal');
    await page.waitForSelector('form#post-entry');
    await page.fill('input[name=entryDate]', '2025-01-15');
    await page.fill('input[name=description]', 'Cash sale');
    await pickAccount(page, 0, '5110');
    await page.locator('input[name=debit]').nth(0).fill('1250.50');
    await pickAccount(page, 1, '9010');
    await page.locator('input[name=credit]').nth(1).fill('1250.5');
    await expect(page.textContent('#entry-total')).resolves.toContain(`Debit ${grouped('1250.50')} · Credit ${grouped('1250.50')} · balanced`);
    await page.click('form#post-entry button[type=submit]');
    await page.waitForSelector('#alert.info');
    expect(await page.textContent('#alert')).toContain('Posted entry 1');
    await page.waitForSelector('td:text-is("Cash sale")');
    await shot(page, '06-journal');

    await page.click('text=Trial balance');
    await page.fill('input[name=asOf]', '2025-01-31');
    await page.click('form.inline button');
    await page.waitForSelector(`#total-debit:text-is("${grouped('1250.50')}")`);
    expect(await page.textContent('#total-credit')).toBe(grouped('1250.50'));
    await shot(page, '07-trial-balance');

    await page.click('text=Period closes');
    await page.fill('input[name=closeDate]', '2025-01-31');
    await page.click('form#close-period button');
    await page.waitForSelector('td.status.COMPLETED', { timeout: 30_000 });
    await shot(page, '08-period-closes');

    // Reversal of the entry, after the close: dated in the open period.
    await page.click('text=Journal');
    await page.click('button:text-is("Open")');
    await page.waitForSelector('form#reverse');
    await page.fill('form#reverse input[name=entryDate]', '2025-02-03');
    await page.fill('form#reverse input[name=reason]', 'Entered twice');
    await page.click('form#reverse button[type=submit]');
    await page.waitForSelector('#alert.info');
    expect(await page.textContent('#alert')).toContain('Reversed by entry 2');
    await shot(page, '15-reversed-entry');

    // Users and an emailed invitation (ADMIN).
    await page.click('text=Users and invitations');
    await page.waitForSelector(`td:text-is("${user.email}")`);
    const invited = uniqueEmail('invited');
    await page.fill('form#invite input[name=email]', invited);
    await page.selectOption('form#invite select[name=role]', 'ACCOUNTANT');
    await page.click('form#invite button[type=submit]');
    await page.waitForSelector('#alert.info');
    expect(await page.textContent('#alert')).toContain(`Invitation mailed to ${invited}`);
    expect((await waitForMail(stack, invited))[0]!.text).toContain(workspaceUrl(user.me.company.slug, '/invitations/accept?invitation='));
    await shot(page, '16-users');

    // Logging out ends the session on the server too, not only in the page.
    const revoked = async () =>
      (await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE tenant_id = :t AND revoked_at IS NOT NULL', {
        replacements: { t: user.me.tenantId },
        type: QueryTypes.SELECT,
      }))[0]!.n;
    expect(await revoked()).toBe(0);
    await page.click('#logout');
    await page.waitForSelector('form#login');
    expect(await page.textContent('#alert')).toContain('You have logged out');
    expect(await revoked()).toBe(1);
    expect(problemsOf(page)).toEqual([]);
  });

  test('a USD line through the form: the CBU rate of the entry date shown before posting, a corrected or missing rate refused in plain words, the entry and its USD balance', async () => {
    await storeCbuRate(stack, 'USD', '2011-02-25', '12800.00'); // an earlier publication, which the date does not take
    await storeCbuRate(stack, 'USD', '2011-03-01', '12850.12');
    await storeCbuRate(stack, 'EUR', '2011-03-01', '14000.00');
    const user = await registerWorkspace(stack);
    const page = await newPage();
    const sent: Array<{ lines: unknown[] }> = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && req.url().endsWith('/entries')) sent.push(req.postDataJSON() as { lines: unknown[] });
    });
    await logIn(page, user);
    await page.waitForSelector('#roles');
    await page.click('text=Journal');
    await page.waitForSelector('form#post-entry');
    await page.fill('input[name=entryDate]', '2011-03-02');
    await page.fill('input[name=description]', 'Sale paid in dollars');
    const row = (i: number) => page.locator('form#post-entry tbody tr').nth(i);
    await pickAccount(page, 0, '5210');
    await row(0).locator('select[name=currency]').selectOption('USD');
    await row(0).locator('input[name=currencyAmount]').fill('100.10');
    // The rate of the latest publication on or before the entry date, shown before posting, and the UZS amount at it.
    await row(0).locator('td.rate', { hasText: `1 USD = ${grouped('12850.12')} UZS, CBU 2011-03-01` }).waitFor();
    expect(await row(0).locator('td.rate').textContent()).toBe(`1 USD = ${grouped('12850.12')} UZS, CBU 2011-03-01`);
    expect(await row(0).locator('input[name=debit]').inputValue()).toBe(grouped('1286297.01'));
    expect(await row(0).locator('input[name=debit]').getAttribute('readonly')).toBe('');
    await pickAccount(page, 1, '9010');
    await row(1).locator('input[name=credit]').fill('1286297.01');
    await expect(page.textContent('#entry-total')).resolves.toBe(`Debit ${grouped('1286297.01')} · Credit ${grouped('1286297.01')} · balanced`);
    expect(await row(1).locator('td.rate').textContent()).toBe('');
    await shot(page, '19-journal-foreign-line');

    // The Central Bank corrects the rate after the form read it: the API refuses the amount, the page says why in
    // plain words and reads the rate again. 100.10 × 12850.05 = 1286290.005, rounded half-up (a float would say .00).
    await storeCbuRate(stack, 'USD', '2011-03-01', '12850.05');
    await page.click('form#post-entry button[type=submit]');
    await page.locator('#alert.error', { hasText: 'do not match the Central Bank (CBU) rate stored now' }).waitFor();
    expect(await page.textContent('#alert')).toContain(`line 1 comes to ${grouped('1286290.01')} UZS`);
    await row(0).locator('td.rate', { hasText: `1 USD = ${grouped('12850.05')} UZS, CBU 2011-03-01` }).waitFor();
    expect(await row(0).locator('input[name=debit]').inputValue()).toBe(grouped('1286290.01'));
    await expect(page.textContent('#entry-total')).resolves.toContain('not balanced');
    await shot(page, '20-journal-rate-corrected');
    await row(1).locator('input[name=credit]').fill('1286290.01');
    await page.click('form#post-entry button[type=submit]');
    await page.locator('#alert.info', { hasText: 'Posted entry 1.' }).waitFor();
    // The foreign line names its currency and amount and leaves the rate to the API; the UZS line names no currency.
    expect(sent.map((body) => body.lines)).toEqual([
      [
        { accountCode: '5210', debit: '1286297.01', credit: '0', currency: 'USD', currencyAmount: '100.10', rateSource: 'CBU' },
        { accountCode: '9010', debit: '0', credit: '1286297.01' },
      ],
      [
        { accountCode: '5210', debit: '1286290.01', credit: '0', currency: 'USD', currencyAmount: '100.10', rateSource: 'CBU' },
        { accountCode: '9010', debit: '0', credit: '1286290.01' },
      ],
    ]);
    const entries = await api(stack).get(`/api/v1/ledger/${user.me.company.id}/entries`).set(...bearer(user.accessToken)).expect(200);
    expect(entries.body.items).toHaveLength(1);
    expect(entries.body.items[0].lines).toEqual([
      expect.objectContaining({ lineNo: 1, accountCode: '5210', debit: '1286290.01', credit: '0.00', currency: 'USD', currencyAmount: '100.10', rate: '12850.05', rateSource: 'CBU', rateDate: '2011-03-01' }),
      expect.objectContaining({ lineNo: 2, accountCode: '9010', debit: '0.00', credit: '1286290.01', currency: null, currencyAmount: null, rate: null, rateSource: null, rateDate: null }),
    ]);

    // The listing and the entry show the foreign line's amount and rate.
    await page.locator('td.foreign', { hasText: `USD 100.10 at ${grouped('12850.05')}` }).waitFor();
    expect(await page.locator('td.foreign').first().textContent()).toBe(`USD 100.10 at ${grouped('12850.05')}`);
    await page.click('button:text-is("Open")');
    await page.waitForSelector('td:text-is("USD 100.10")');
    expect(await page.locator('td.rate').first().textContent()).toBe(`${grouped('12850.05')} (CBU 2011-03-01)`);
    await shot(page, '21-journal-foreign-entry');

    // A rate gone when the entry is posted: the 409 in plain words, and the line then says it has no rate.
    await page.click('text=Journal');
    await page.waitForSelector('form#post-entry');
    await page.fill('input[name=entryDate]', '2011-03-02');
    await page.fill('input[name=description]', 'Sale paid in euros');
    await pickAccount(page, 0, '5210');
    await row(0).locator('select[name=currency]').selectOption('EUR');
    await row(0).locator('input[name=currencyAmount]').fill('10');
    await row(0).locator('td.rate', { hasText: `1 EUR = ${grouped('14000')} UZS, CBU 2011-03-01` }).waitFor();
    await pickAccount(page, 1, '9010');
    await row(1).locator('input[name=credit]').fill('140000.00');
    await stack.admin.query("DELETE FROM exchange_rates WHERE source = 'CBU' AND currency_code = 'EUR' AND effective_date = '2011-03-01'");
    await page.click('form#post-entry button[type=submit]');
    await page.locator('#alert.error', { hasText: 'The Central Bank (CBU) has no rate of EUR stored on or before 2011-03-02' }).waitFor();
    await row(0).locator('td.rate', { hasText: 'No CBU rate of EUR on or before 2011-03-02' }).waitFor();
    expect(await row(0).locator('select[name=currency] option:checked').textContent()).toBe('EUR (no rate)');

    // The trial balance shows the account's USD balance and its carrying amount, and filters on the currency.
    await page.click('text=Trial balance');
    await page.fill('input[name=asOf]', '2011-03-31');
    await page.click('form.inline button');
    await page.waitForSelector(`#total-debit:text-is("${grouped('1286290.01')}")`);
    expect(await page.textContent('tr[data-code="5210"] .currency-balance[data-currency=USD]')).toBe(`USD 100.10 · carried at ${grouped('1286290.01')} UZS`);
    expect(await page.locator('tr[data-code="9010"] .currency-balance').count()).toBe(0);
    await page.selectOption('select[name=currency]', 'USD');
    await page.click('form.inline button');
    await page.waitForSelector('#currency-note');
    expect(await page.locator('tr[data-code]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-code')))).toEqual(['5210']);
    expect(await page.textContent('#total-credit')).toBe('0.00');
    await shot(page, '22-trial-balance-currency');
    expect(problemsOf(page)).toEqual([]);
  });

  test('the trial balance and the turnover sheet draw the newest query: a slower answer to an earlier one is dropped', async () => {
    const user = await registerWorkspace(stack);
    await ledgerApi(stack, user).post(entryBody('2011-07-05', [{ accountCode: '5110', debit: '250.00' }, { accountCode: '8330', credit: '250.00' }])).expect(201);
    const page = await newPage();
    await logIn(page, user);
    await page.waitForSelector('#roles');
    // The answers for the first of July (nothing posted yet) come a second late.
    const slow = (url: URL) => url.searchParams.get('asOf') === '2011-07-01' || url.searchParams.get('to') === '2011-07-01';
    await page.route(slow, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await route.continue();
    });
    for (const [tab, fields] of [['trial-balance', ['asOf']], ['turnover-sheet', ['from', 'to']]] as const) {
      await page.click(`nav.tabs a[href="#${tab}"]`);
      await page.waitForSelector(`#section-${tab} form button[type=submit]`);
      const ask = async (date: string) => {
        for (const field of fields) await page.fill(`#section-${tab} input[name=${field}]`, field === 'from' ? '2011-07-01' : date);
        await page.click(`#section-${tab} form button[type=submit]`);
      };
      const late = page.waitForResponse((res) => slow(new URL(res.url())));
      await ask('2011-07-01');
      await ask('2011-07-31');
      await page.waitForSelector(`#section-${tab} tr[data-code="5110"]`);
      await late;
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
      // The late answer (no lines) did not replace the newer one.
      expect(await page.locator(`#section-${tab} tr[data-code="5110"]`).count()).toBe(1);
      expect(await page.locator(`#section-${tab} tr[data-code="8330"]`).count()).toBe(1);
    }
    expect(problemsOf(page)).toEqual([]);
  });

  test('the turnover sheet shows the API\'s numbers; an account opens its statement, whose running balance carries across pages', async () => {
    await storeCbuRate(stack, 'USD', '2011-05-02', '12000.00'); // so that the currency filter offers USD in May 2011
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    const post = (body: unknown) => ledger.post(body).expect(201);
    await post(entryBody('2011-04-20', [{ accountCode: '5110', debit: '1000.00' }, { accountCode: '8330', credit: '1000.00' }], { description: 'Contribution' }));
    // Twelve movements on 5110 in May: sales, and every fourth day an expense paid from it.
    for (let day = 1; day <= 12; day++) {
      const date = `2011-05-${String(day).padStart(2, '0')}`;
      const amount = `${day}00.25`;
      await post(
        day % 4 === 0
          ? entryBody(date, [{ accountCode: '9410', debit: amount }, { accountCode: '5110', credit: amount }], { description: `Expense ${day}` })
          : entryBody(date, [{ accountCode: '5110', debit: amount }, { accountCode: '9010', credit: amount }], { description: `Sale ${day}` }),
      );
    }
    await post(
      entryBody('2011-05-20', [
        { accountCode: '5210', debit: '1200000.00', currency: 'USD', currencyAmount: '100.00', rate: '12000', rateSource: 'MANUAL' },
        { accountCode: '9010', credit: '1200000.00' },
      ], { description: 'Sale paid in dollars' }),
    );
    await post(entryBody('2011-06-01', [{ accountCode: '5110', debit: '7.00' }, { accountCode: '9010', credit: '7.00' }])); // after the range

    const page = await newPage();
    await logIn(page, user);
    await page.waitForSelector('#roles');
    await page.click('nav.tabs a[href="#turnover-sheet"]');
    await page.waitForSelector('form#turnover-form');
    // The current month by default.
    const now = new Date().toISOString().slice(0, 10);
    expect(await page.inputValue('input[name=from]')).toBe(`${now.slice(0, 7)}-01`);
    const end = await page.inputValue('input[name=to]');
    expect(end.slice(0, 7)).toBe(now.slice(0, 7));
    expect(new Date(`${end}T00:00:00Z`).getUTCMonth()).not.toBe(new Date(Date.parse(`${end}T00:00:00Z`) + 86_400_000).getUTCMonth()); // the month's last day

    const cellsOf = (selector: string) =>
      page.locator(selector).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    const amountKeys = ['openingDebit', 'openingCredit', 'turnoverDebit', 'turnoverCredit', 'closingDebit', 'closingCredit'] as const;
    type Sums = Record<(typeof amountKeys)[number], string>;
    const show = async () => {
      // Listening before the click: a fast answer can come before a listener set up after it.
      await Promise.all([page.waitForResponse((res) => res.url().includes('/reports/turnover-sheet')), page.click('form#turnover-form button[type=submit]')]);
      await page.waitForSelector('table.turnover');
    };
    await page.fill('input[name=from]', '2011-05-01');
    await page.fill('input[name=to]', '2011-05-31');
    await show();
    await page.waitForSelector('tr[data-code="5210"]');
    const sheet = (await ledger.turnoverSheet('2011-05-01', '2011-05-31').expect(200)).body as { rows: Array<Sums & { accountCode: string; name: string }>; totals: Sums };
    expect(sheet.rows.map((r) => r.accountCode)).toEqual(['5110', '5210', '8330', '9010', '9410']);
    expect(await cellsOf('table.turnover tbody tr')).toEqual(sheet.rows.map((r) => [r.accountCode, r.name, ...amountKeys.map((k) => grouped(r[k]))]));
    expect(await cellsOf('table.turnover tfoot tr')).toEqual([['Total', ...amountKeys.map((k) => grouped(sheet.totals[k]))]]);
    expect(sheet.rows[0]).toMatchObject({ openingDebit: '1000.00', closingDebit: '4001.50' }); // the sheet checked is not empty
    await shot(page, '23-turnover-sheet');

    // In USD: the USD lines alone, with their dollar amounts.
    await page.selectOption('select[name=currency]', 'USD');
    await show();
    await page.waitForSelector('#currency-note');
    const usd = (await ledger.turnoverSheet('2011-05-01', '2011-05-31', { currency: 'USD' }).expect(200)).body as { rows: Array<Sums & { accountCode: string; name: string; foreign: Record<string, string> }> };
    expect(usd.rows.map((r) => r.accountCode)).toEqual(['5210']);
    expect(await cellsOf('table.turnover tbody tr')).toEqual([
      ['5210', usd.rows[0]!.name, ...amountKeys.map((k) => grouped(usd.rows[0]![k])), ...['opening', 'turnoverDebit', 'turnoverCredit', 'closing'].map((k) => grouped(usd.rows[0]!.foreign[k]!))],
    ]);
    expect(usd.rows[0]!.foreign).toEqual({ opening: '0.00', turnoverDebit: '100.00', turnoverCredit: '0.00', closing: '100.00' });
    await shot(page, '24-turnover-sheet-usd');
    // By subaccount: a column for it (none here).
    await page.selectOption('select[name=currency]', '');
    await page.selectOption('select[name=detail]', 'SUBACCOUNT');
    await show();
    await page.waitForSelector('table.turnover th:text-is("Subaccount")');
    expect(await page.locator('tr[data-code="5110"] td').nth(2).textContent()).toBe('none');

    // An account of the sheet opens its statement for the sheet's range, and the way back returns to the sheet.
    await page.click('tr[data-code="9410"] button.statement-link');
    await page.waitForSelector(`#closing-balance:text-is("${grouped('2400.75')}")`);
    expect(await page.textContent('#statement-scope')).toBe('2011-05-01 to 2011-05-31');
    expect(await page.textContent('#opening-balance')).toBe('0.00');
    await page.click('button:text-is("← Back to the turnover sheet")');
    await page.waitForSelector('tr[data-code="9410"]');
    expect(await page.inputValue('select[name=detail]')).toBe('SUBACCOUNT');

    // The trial balance: an account's code, reached with the keyboard, opens its statement from the first of the month to the date.
    await page.click('nav.tabs a[href="#trial-balance"]');
    await page.fill('input[name=asOf]', '2011-05-31');
    await page.click('form.inline button');
    await page.waitForSelector(`#total-debit:text-is("${grouped('1208803.00')}")`);
    await page.focus('tr[data-code="5110"] button.statement-link');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#statement table');
    expect(await page.textContent('#statement-scope')).toBe('2011-05-01 to 2011-05-31');
    expect(await page.evaluate('document.activeElement?.tagName')).toBe('H1');
    expect(await page.textContent('h1')).toMatch(/^Statement of 5110 \S/);
    await page.selectOption('select[name=size]', '10');
    await page.waitForSelector('#statement-page:text-is("Page 1 of 2 · 12 lines")');
    const whole = (await ledger.accountStatement({ accountCode: '5110', from: '2011-05-01', to: '2011-05-31', size: 100 }).expect(200)).body;
    expect(await page.textContent('#opening-balance')).toBe(grouped(whole.openingBalance));
    expect(await page.textContent('#turnover-debit')).toBe(grouped(whole.turnoverDebit));
    expect(await page.textContent('#turnover-credit')).toBe(grouped(whole.turnoverCredit));
    expect(await page.textContent('#closing-balance')).toBe(grouped(whole.closingBalance));
    expect(whole).toMatchObject({ openingBalance: '1000.00', closingBalance: '4001.50' });

    // Each page's lines: the running balance is the balance brought forward plus each line, and the next page
    // carries on from the last balance of this one.
    type Shown = { entry: string; date: string; counter: string; debit: string; credit: string; balance: string };
    const shownLines = () =>
      page.locator('#statement tbody tr[data-entry]').evaluateAll((rows) =>
        rows.map((r) => {
          const cell = (i: number) => r.querySelectorAll('td')[i]!.textContent!;
          return { entry: cell(1), date: cell(0), counter: cell(3), debit: cell(4), credit: cell(5), balance: cell(6) };
        }),
      );
    let running = numericToMinorUnits(whole.openingBalance);
    const seen: Shown[] = [];
    const checkPage = async (expectedLines: number) => {
      const lines = await shownLines();
      expect(lines).toHaveLength(expectedLines);
      expect(await page.textContent('#page-opening-balance')).toBe(grouped(formatMinorUnits(running)));
      for (const line of lines) {
        running += numericToMinorUnits(plain(line.debit)) - numericToMinorUnits(plain(line.credit));
        expect(line.balance).toBe(grouped(formatMinorUnits(running)));
      }
      seen.push(...lines);
    };
    await checkPage(10);
    expect(await page.isDisabled('#statement-previous')).toBe(true);
    await shot(page, '25-account-statement');
    await page.click('#statement-next');
    await page.waitForSelector('#statement-page:text-is("Page 2 of 2 · 12 lines")');
    await checkPage(2);
    expect(await page.isDisabled('#statement-next')).toBe(true);
    expect(formatMinorUnits(running)).toBe(whole.closingBalance);
    await shot(page, '26-account-statement-page-2');
    // The pages are the API's lines, in journal order, with their counter-accounts.
    expect(seen).toEqual(
      (whole.items as Array<{ entryNumber: number; entryDate: string; counterAccounts: string[]; debit: string; credit: string; balance: string }>).map((l) => ({
        entry: String(l.entryNumber), date: l.entryDate, counter: l.counterAccounts.join(', '), debit: grouped(l.debit), credit: grouped(l.credit), balance: grouped(l.balance),
      })),
    );
    expect(seen[3]).toMatchObject({ counter: '9410', credit: '400.25' });
    // Back to the first page: the same balances again.
    await page.click('#statement-previous');
    await page.waitForSelector('#statement-page:text-is("Page 1 of 2 · 12 lines")');
    expect(await page.textContent('#page-opening-balance')).toBe(grouped('1000.00'));
    expect((await shownLines()).map((l) => l.balance)).toEqual(seen.slice(0, 10).map((l) => l.balance));

    // A line's entry number opens the entry; its way back returns to the statement.
    await page.click('#statement tbody tr[data-entry] button >> nth=1');
    await page.waitForSelector('h1:text-matches("^Entry 3: Sale 2$")');
    await page.click('button:text-is("← Back to the statement")');
    await page.waitForSelector('#statement-page:text-is("Page 1 of 2 · 12 lines")');
    // And the way back from the statement returns to the trial balance as it was left.
    await page.click('button:text-is("← Back to the trial balance")');
    await page.waitForSelector(`#total-debit:text-is("${grouped('1208803.00')}")`);
    expect(await page.inputValue('input[name=asOf]')).toBe('2011-05-31');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('5110');
    expect(problemsOf(page)).toEqual([]);
  });

  test('Form No. 1 as the API answers it, a row\'s accounts, and the turnover sheet and journal saved as files with the JSON\'s numbers', async () => {
    const user = await registerWorkspace(stack);
    const ledger = ledgerApi(stack, user);
    const post = (body: unknown) => ledger.post(body).expect(201);
    await post(entryBody('2012-02-01', [{ accountCode: '5110', debit: '1000.00' }, { accountCode: '8330', credit: '1000.00' }]));
    await post(entryBody('2012-03-01', [{ accountCode: '2910', debit: '300.00' }, { accountCode: '6010', credit: '300.00' }]));
    await post(entryBody('2012-05-02', [{ accountCode: '5110', debit: '250.50' }, { accountCode: '9010', credit: '250.50' }], { description: 'Sale, "cash", paid' }));
    await post(entryBody('2012-05-03', [{ accountCode: '9410', debit: '100.25' }, { accountCode: '5110', credit: '100.25' }]));

    const page = await newPage();
    await logIn(page, user);
    await page.waitForSelector('#roles');
    await page.click('nav.tabs a[href="#statements"]');
    await page.waitForSelector('form#form-1-query');
    await page.waitForSelector('form#form-2-query');
    await page.fill('form#form-1-query input[name=asOf]', '2012-05-31');
    await page.click('form#form-1-query button[type=submit]');
    const form1 = (await ledger.report('balance-sheet', { asOf: '2012-05-31' }).expect(200)).body as {
      rows: Array<{ code: string; total: boolean; amount: string | null; priorAmount: string | null; accounts: Array<{ accountCode: string; amount: string; priorAmount: string }> }>;
    };
    const apiRow = (code: string) => form1.rows.find((r) => r.code === code)!;
    expect(apiRow('400').amount).toBe('1450.25'); // 5110 1150.25 and 2910 300.00: the form checked is not empty
    const cell = (code: string, column: 'amount' | 'prior') => page.textContent(`#form-1 tr[data-code="${code}"] td.${column}`);
    await page.waitForSelector(`#form-1 tr[data-code="400"] td.amount:text-is("${grouped(apiRow('400').amount!)}")`);
    expect(await cell('400', 'amount')).toBe(await cell('780', 'amount'));
    expect(await cell('780', 'amount')).toBe(grouped(apiRow('780').amount!));
    expect(await cell('400', 'prior')).toBe(grouped(apiRow('400').priorAmount!));
    // Every row as the API has it, totals in bold, headings without amounts.
    const shown = await page.locator('#form-1 tbody tr:not(.drill)').evaluateAll((rows) =>
      rows.map((r) => ({ code: r.getAttribute('data-code'), total: r.classList.contains('total'), amount: r.querySelector('td.amount')!.textContent, prior: r.querySelector('td.prior')!.textContent })));
    expect(shown).toEqual(form1.rows.map((r) => ({ code: r.code, total: r.total, amount: r.amount === null ? '' : grouped(r.amount), prior: r.priorAmount === null ? '' : grouped(r.priorAmount) })));
    expect(await page.evaluate('getComputedStyle(document.querySelector(\'#form-1 tr.total[data-code="400"] td\')).fontWeight')).toBe('600');

    // A row read from accounts opens its accounts: here the row holding 5110.
    const cashRow = form1.rows.find((r) => r.accounts.some((a) => a.accountCode === '5110'))!;
    expect(await page.isVisible(`#form-1 tr.drill[data-parent="${cashRow.code}"]`)).toBe(false);
    await page.click(`#form-1 tr[data-code="${cashRow.code}"] button.drill-toggle`);
    await page.waitForSelector(`#form-1 tr.drill[data-parent="${cashRow.code}"][data-account="5110"]`, { state: 'visible' });
    const drill = await page.locator(`#form-1 tr.drill[data-parent="${cashRow.code}"]`).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(drill).toEqual(cashRow.accounts.map((a) => [a.accountCode, grouped(a.amount), grouped(a.priorAmount)]));
    expect(cashRow.accounts.find((a) => a.accountCode === '5110')!.amount).toBe('1150.25');
    await shot(page, '27-balance-sheet');
    // An account of the drill-down opens its statement from the first of the year to the date, and back.
    await page.click(`#form-1 tr.drill[data-account="5110"] button.statement-link`);
    await page.waitForSelector(`#closing-balance:text-is("${grouped('1150.25')}")`);
    expect(await page.textContent('#statement-scope')).toBe('2012-01-01 to 2012-05-31');
    await page.click('button:text-is("← Back to the balance sheet")');
    await page.waitForSelector(`#form-1 tr.drill[data-account="5110"]`, { state: 'visible' });

    // The turnover sheet's CSV: the file the API names, with the numbers of the JSON.
    await page.click('nav.tabs a[href="#turnover-sheet"]');
    await page.fill('input[name=from]', '2012-05-01');
    await page.fill('input[name=to]', '2012-05-31');
    await page.click('form#turnover-form button[type=submit]');
    await page.waitForSelector('tr[data-code="9410"]');
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#section-turnover-sheet button.download[data-format=csv]')]);
    expect(csv.suggestedFilename()).toBe(`turnover-sheet-${user.me.company.id}-2012-05-01-2012-05-31.csv`);
    const records = parse(readFileSync((await csv.path())!), { columns: true, bom: true }) as Array<Record<string, string>>;
    const sheet = (await ledger.turnoverSheet('2012-05-01', '2012-05-31').expect(200)).body as { rows: Array<Record<string, string>> };
    const amountKeys = ['openingDebit', 'openingCredit', 'turnoverDebit', 'turnoverCredit', 'closingDebit', 'closingCredit'];
    const pick = (r: Record<string, string>) => [r.accountCode, ...amountKeys.map((k) => r[k])];
    expect(records.map(pick)).toEqual(sheet.rows.map(pick));
    expect(records.find((r) => r.accountCode === '5110')).toMatchObject({ openingDebit: '1000.00', turnoverDebit: '250.50', closingDebit: '1150.25' });
    // The XLSX is a zip under its own name.
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.click('#section-turnover-sheet button.download[data-format=xlsx]')]);
    expect(xlsx.suggestedFilename()).toBe(`turnover-sheet-${user.me.company.id}-2012-05-01-2012-05-31.xlsx`);
    expect(readFileSync((await xlsx.path())!).subarray(0, 2).toString()).toBe('PK');

    // The journal's hledger file: every entry, the quoted description as typed.
    await page.click('nav.tabs a[href="#journal"]');
    await page.waitForSelector('#section-journal button.download[data-format=hledger]');
    const [journalFile] = await Promise.all([page.waitForEvent('download'), page.click('#section-journal button.download[data-format=hledger]')]);
    expect(journalFile.suggestedFilename()).toMatch(/\.journal$/);
    const text = readFileSync((await journalFile.path())!, 'utf8');
    expect(text).toContain('Sale, "cash", paid');
    expect(text).toContain('2012-05-03');
    await shot(page, '28-journal-downloads');
    expect(problemsOf(page)).toEqual([]);
  });

  test('counterparties: added through the form (hints, the API\'s problems at their fields, a stale edit reloaded), found by search, archived and restored; an entry posted with the pickers shows its grouped amount', async () => {
    const user = await registerWorkspace(stack);
    const page = await newPage();
    const sent: Array<{ lines: unknown[] }> = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && req.url().endsWith('/entries')) sent.push(req.postDataJSON() as { lines: unknown[] });
    });
    await logIn(page, user);
    await page.waitForSelector('#roles');
    await page.click('nav.tabs a[href="#counterparties"]');
    await page.waitForSelector('#counterparty-list p:text-is("No counterparties yet.")');

    // A new counterparty: a TIN one digit short is pointed out at its field once it is left, and the hint goes when mended.
    await page.click('#new-counterparty');
    await page.waitForSelector('form#counterparty-form');
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('name');
    await page.fill('form#counterparty-form input[name=name]', 'Chorsu Trade LLC');
    await page.fill('form#counterparty-form input[name=tin]', '30123456');
    await page.press('form#counterparty-form input[name=tin]', 'Tab');
    await page.waitForSelector('#counterparty-tin-error:not([hidden])');
    expect(await page.textContent('#counterparty-tin-error')).toBe('A TIN is 9 digits; 8 typed.');
    expect(await page.getAttribute('form#counterparty-form input[name=tin]', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('form#counterparty-form input[name=tin]', 'aria-describedby')).toContain('counterparty-tin-error');
    await page.fill('form#counterparty-form input[name=tin]', '301234567');
    await page.waitForSelector('#counterparty-tin-error', { state: 'hidden' });
    await page.fill('form#counterparty-form input[name=vatRegistrationCode]', '326010012345');
    await page.fill('form#counterparty-form textarea[name=address]', 'Tashkent, Chorsu bazaar 1');
    await page.fill('form#counterparty-form input[name=paymentTermsDays]', '30');
    // Two bank accounts added, the first removed: the one left is sent.
    await page.click('#add-bank-account');
    await page.fill('.bank-account >> nth=0 >> input[name=bankCode]', '00444');
    await page.click('#add-bank-account');
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('bankCode');
    await page.fill('.bank-account >> nth=1 >> input[name=bankCode]', '00014');
    await page.fill('.bank-account >> nth=1 >> input[name=accountNumber]', '20208000900100001010');
    await page.click('button[aria-label="Remove bank account 1"]');
    expect(await page.locator('.bank-account').count()).toBe(1);
    expect(await page.getAttribute('.bank-account button.remove', 'aria-label')).toBe('Remove bank account 1');
    await shot(page, '29-counterparty-form');
    await page.click('form#counterparty-form button[type=submit]');
    await page.locator('#alert.info', { hasText: 'Added Chorsu Trade LLC.' }).waitFor();
    await page.waitForSelector('#counterparty-list tr[data-id]');
    const [chorsu] = (await api(stack).get(`/api/v1/counterparties/${user.me.company.id}`).set(...bearer(user.accessToken)).expect(200)).body.items;
    expect(chorsu).toMatchObject({
      name: 'Chorsu Trade LLC', tin: '301234567', pinfl: null, vatRegistrationCode: '326010012345', address: 'Tashkent, Chorsu bazaar 1', paymentTermsDays: 30,
      bankAccounts: [{ bankCode: '00014', accountNumber: '20208000900100001010' }], archived: false, version: 1,
    });

    // Two more from the API; the search is typed, not submitted, and a TIN's start finds its counterparty.
    const other = async (body: Record<string, unknown>) =>
      (await api(stack).post(`/api/v1/counterparties/${user.me.company.id}`).set(...bearer(user.accessToken)).send(body).expect(201)).body as { id: string; name: string };
    const samarkand = await other({ name: 'Samarkand Supplies', tin: '302222222' });
    await other({ name: 'Karimov Anvar', pinfl: '41234567890123' });
    const names = () => page.locator('#counterparty-list tr[data-id] td.name > div:first-child').allTextContents();
    const namesBecome = async (expected: string[]) => expect(await until(names, (shown) => shown.join('|') === expected.join('|'))).toEqual(expected);
    await page.fill('#counterparty-search input[name=q]', 'samark');
    await namesBecome(['Samarkand Supplies']);
    await page.fill('#counterparty-search input[name=q]', '3012');
    await namesBecome(['Chorsu Trade LLC']);
    expect(await page.textContent('#counterparty-list td.identification')).toBe('TIN 301234567');
    await page.fill('#counterparty-search input[name=q]', '');
    await namesBecome(['Chorsu Trade LLC', 'Karimov Anvar', 'Samarkand Supplies']);
    expect(await page.textContent('#counterparties-page')).toBe('Page 1 of 1 · 3 counterparties');
    await shot(page, '30-counterparties');

    // The API's refusal at its field: a TIN another counterparty has.
    await page.click('#new-counterparty');
    await page.fill('form#counterparty-form input[name=name]', 'Samarkand Supplies again');
    await page.fill('form#counterparty-form input[name=tin]', '302222222');
    await page.click('form#counterparty-form button[type=submit]');
    await page.waitForSelector('#counterparty-tin-error:not([hidden])');
    expect(await page.textContent('#counterparty-tin-error')).toContain('302222222');
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('tin');
    expect(await page.textContent('#alert')).toMatch(/\S/);
    await shot(page, '31-counterparty-tin-taken');
    await page.click('button:text-is("← All counterparties")');
    await page.waitForSelector('#counterparty-list tr[data-id]');

    // An edit saved by someone else meanwhile: the form says so and reads the counterparty again.
    await page.click(`#counterparty-list tr[data-id="${chorsu.id}"] button[data-action=edit]`);
    await page.waitForSelector('form#counterparty-form');
    expect(await page.inputValue('form#counterparty-form input[name=accountNumber]')).toBe('20208000900100001010');
    await api(stack).put(`/api/v1/counterparties/${user.me.company.id}/${chorsu.id}`).set(...bearer(user.accessToken))
      .send({ ...chorsu, id: undefined, version: undefined, paymentTermsDays: 45, expectedVersion: 1 }).expect(200);
    await page.fill('form#counterparty-form textarea[name=address]', 'Tashkent, Chorsu bazaar 2');
    await page.click('form#counterparty-form button[type=submit]');
    await page.waitForSelector('#counterparty-form-notice .stale');
    expect(await page.textContent('#counterparty-form-notice')).toContain('saved by someone else after you opened it');
    await shot(page, '32-counterparty-stale');
    await page.click('#counterparty-form-notice button:text-is("Reload the counterparty")');
    expect(await until(() => page.inputValue('form#counterparty-form input[name=paymentTermsDays]'), (days) => days === '45')).toBe('45');
    expect(await page.inputValue('form#counterparty-form textarea[name=address]')).toBe('Tashkent, Chorsu bazaar 1');
    await page.fill('form#counterparty-form textarea[name=address]', 'Tashkent, Chorsu bazaar 2');
    await page.click('form#counterparty-form button[type=submit]');
    await page.locator('#alert.info', { hasText: 'Saved Chorsu Trade LLC.' }).waitFor();
    await page.waitForSelector('#counterparty-list tr[data-id] .muted:text-is("Tashkent, Chorsu bazaar 2")');

    // Archived, it leaves the active list and shows among the archived, whence it is restored.
    await page.click(`#counterparty-list tr[data-id="${samarkand.id}"] button[data-action=archive]`);
    await page.locator('#alert.info', { hasText: 'Samarkand Supplies is archived' }).waitFor();
    await namesBecome(['Chorsu Trade LLC', 'Karimov Anvar']);
    await page.selectOption('#counterparty-search select[name=archived]', 'true');
    await page.waitForSelector(`#counterparty-list tr.archived[data-id="${samarkand.id}"]`);
    expect(await names()).toEqual(['Samarkand Suppliesarchived']);
    await page.click(`#counterparty-list tr[data-id="${samarkand.id}"] button[data-action=restore]`);
    await page.waitForSelector('#counterparty-list p:text-is("No archived counterparties yet.")');
    await page.selectOption('#counterparty-search select[name=archived]', 'false');

    // The journal: the account and the counterparty of a line chosen with the keyboard in their pickers.
    await page.click('nav.tabs a[href="#journal"]');
    await page.waitForSelector('form#post-entry');
    await page.fill('input[name=entryDate]', '2013-04-10');
    await page.fill('input[name=description]', 'Goods sold on credit');
    const row = (i: number) => page.locator('form#post-entry tbody tr').nth(i);
    const account = row(0).locator('input[data-picker=accountCode]');
    expect(await account.getAttribute('role')).toBe('combobox');
    expect(await account.getAttribute('aria-label')).toBe('Account of line 1');
    await account.fill('receivables from buyers');
    const accountList = page.locator(`#${await account.getAttribute('aria-controls')}`);
    await accountList.locator('[role=option]').first().waitFor();
    expect(await account.getAttribute('aria-expanded')).toBe('true');
    // Only accounts that take lines: the header 4000 of the same name is not offered.
    const offered = await accountList.locator('[role=option]').evaluateAll((options) => options.map((o) => o.getAttribute('data-value')));
    expect(offered).toContain('4010');
    expect(offered).not.toContain('4000');
    const headers = (await api(stack).get(`/api/v1/accounting-settings/${user.me.company.id}/accounts?header=true&size=100`).set(...bearer(user.accessToken)).expect(200)).body.items as Array<{ code: string }>;
    expect(headers.map((a) => a.code)).toContain('4000');
    // ↓ moves through the options, ↑ back: one past 4010 and back again.
    for (let i = 0; i <= offered.indexOf('4010') + 1; i++) await account.press('ArrowDown');
    await account.press('ArrowUp');
    const active = await account.getAttribute('aria-activedescendant');
    expect(await page.getAttribute(`#${active}`, 'aria-selected')).toBe('true');
    expect(await page.getAttribute(`#${active}`, 'data-value')).toBe('4010');
    expect(await accountList.locator('[role=option][aria-selected=true]').count()).toBe(1);
    await shot(page, '33-journal-account-picker');
    await account.press('Enter');
    expect(await account.inputValue()).toBe('4010 Receivables from buyers and customers');
    expect(await account.getAttribute('aria-expanded')).toBe('false');
    expect(await row(0).locator('input[name=accountCode]').inputValue()).toBe('4010');

    const counterparty = row(0).locator('input[data-picker=counterpartyId]');
    expect(await counterparty.getAttribute('aria-label')).toBe('Counterparty of line 1 (optional)');
    await counterparty.fill('3012');
    const counterpartyList = page.locator(`#${await counterparty.getAttribute('aria-controls')}`);
    await counterpartyList.locator('[role=option]:has-text("Chorsu Trade LLC")').waitFor();
    expect(await counterpartyList.locator('[role=option]').allTextContents()).toEqual(['Chorsu Trade LLC · TIN 301234567']);
    await counterparty.press('Escape');
    expect(await counterparty.getAttribute('aria-expanded')).toBe('false');
    await counterparty.press('ArrowDown');
    await counterparty.press('Enter');
    expect(await counterparty.inputValue()).toBe('Chorsu Trade LLC');
    expect(await row(0).locator('input[name=counterpartyId]').inputValue()).toBe(chorsu.id);
    await row(0).locator('input[name=debit]').fill('1250000');
    await row(0).locator('input[name=debit]').press('Tab');
    expect(await row(0).locator('input[name=debit]').inputValue()).toBe(grouped('1250000'));

    await pickAccount(page, 1, '9010');
    await row(1).locator('input[name=credit]').fill(grouped('1250000.00')); // pasted as the console shows it
    await expect(page.textContent('#entry-total')).resolves.toBe(`Debit ${grouped('1250000.00')} · Credit ${grouped('1250000.00')} · balanced`);
    await shot(page, '34-journal-pickers');
    await page.click('form#post-entry button[type=submit]');
    await page.locator('#alert.info', { hasText: 'Posted entry 1.' }).waitFor();
    expect(sent.map((body) => body.lines)).toEqual([[
      { accountCode: '4010', counterpartyId: chorsu.id, debit: '1250000', credit: '0' },
      { accountCode: '9010', debit: '0', credit: '1250000.00' },
    ]]);

    // The listing and the entry show the amount grouped, and the entry names the line's counterparty.
    const listed = page.locator('#section-journal tr', { hasText: 'Goods sold on credit' });
    await listed.waitFor();
    expect(await listed.locator('td.num').textContent()).toBe(`1${'\u202F'}250${'\u202F'}000.00`);
    await listed.locator('button:text-is("Open")').click();
    await page.waitForSelector('h1:text-is("Entry 1: Goods sold on credit")');
    expect(await page.locator('tr[data-line="1"] td').allTextContents()).toEqual(['1', '4010', 'Chorsu Trade LLC · TIN 301234567', grouped('1250000.00'), '0.00', '', '', '']);
    expect(await page.locator('tr[data-line="2"] td.counterparty').textContent()).toBe('');
    await shot(page, '35-journal-entry-counterparty');

    // Copied from the page, an amount is the API's decimal again.
    const copied = await page.evaluate(`(() => {
      getSelection().selectAllChildren(document.querySelector('tr[data-line="1"] td.num'));
      const data = new DataTransfer();
      document.dispatchEvent(new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true }));
      return data.getData('text/plain');
    })()`);
    expect(copied).toBe('1250000.00');
    expect(problemsOf(page)).toEqual([]);
  });

  test('a forgotten password: the login page mails a link, whose page sets a new one with the authenticator code', async () => {
    const user = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, user);
    const before = (await readMail(stack, user.email)).length;
    const page = await newPage();
    await page.goto(workspaceUrl(user.me.company.slug, '/login'));
    await page.fill('input[name=email]', user.email);
    await page.click('#forgot');
    await page.locator('#alert', { hasText: 'a link to choose a new password is on its way' }).waitFor();
    const [mail] = await waitForMail(stack, user.email, before + 1);
    const link = /(http:\/\/\S+\/reset-password\?\S+)/.exec(mail!.text)![1]!;
    expect(link.startsWith(`http://localhost:${port}/reset-password?token=`)).toBe(true);
    await page.goto(link);
    expect(await page.inputValue('input[name=email]')).toBe(user.email);
    expect(new URL(page.url()).search).toBe(''); // the token left the address bar
    const newPassword = 'a brand new password of mine';
    await page.fill('input[name=newPassword]', newPassword);
    await page.fill('input[name=confirmPassword]', newPassword);
    await page.click('button[type=submit]');
    await page.waitForSelector('#factor:not([hidden])');
    await shot(page, '17-reset-password-factor');
    await page.fill('input[name=code]', totpCode(secret, 1));
    await page.click('button[type=submit]');
    await page.waitForSelector('#done:not([hidden])');
    expect(await page.isHidden('#reset')).toBe(true);
    await shot(page, '18-reset-password-done');
    expect(problemsOf(page)).toEqual([]);
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: user.password }).expect(401);
    await api(stack).post('/api/v1/auth/login').send({ email: user.email, password: newPassword }).expect(202);
  });

  test('log in with an emailed code, and with an authenticator code', async () => {
    const byEmail = await registerWorkspace(stack);
    await enableEmailFactor(stack, byEmail);
    const before = await mailCount(stack, byEmail.email);
    const page = await newPage();
    await logIn(page, byEmail);
    await page.waitForSelector('form#factor');
    await shot(page, '09-email-code');
    const mail = await waitForMail(stack, byEmail.email, before + 1);
    await page.fill('input[name=code]', codeFrom(mail[0]!));
    await page.click('form#factor button[type=submit]');
    await page.waitForSelector('#roles');

    const byApp = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, byApp);
    const second = await newPage();
    await logIn(second, byApp);
    await second.waitForSelector('form#factor');
    await shot(second, '10-authenticator-code');
    // The confirmation used this step's code; the next step's is accepted (±1 step) and not yet spent.
    await second.fill('input[name=code]', totpCode(secret, 1));
    await second.click('form#factor button[type=submit]');
    await second.waitForSelector('#roles');
    expect(problemsOf(page)).toEqual([]);
    expect(problemsOf(second)).toEqual([]);
  });

  test('an invited VIEWER accepts from the mailed link, sees no posting form, and a 403 shows as a message', async () => {
    const admin = await registerWorkspace(stack);
    const email = uniqueEmail('viewer');
    await api(stack).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(admin.accessToken)).send({ email, roles: ['VIEWER'] }).expect(201);
    const [mail] = await waitForMail(stack, email);
    const link = /(http:\/\/\S+\/invitations\/accept\?invitation=\S+)/.exec(mail!.text)![1]!;
    expect(link.startsWith(workspaceUrl(admin.me.company.slug, '/invitations/accept?invitation='))).toBe(true);
    const page = await newPage();
    await page.goto(link);
    await shot(page, '11-accept-invitation');
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('form#accept button[type=submit]');
    await page.waitForSelector('#roles');
    expect(await page.textContent('#roles')).toBe('VIEWER');

    await page.click('text=Journal');
    await page.waitForSelector('#section-journal h2');
    expect(await page.locator('form#post-entry').count()).toBe(0);
    await shot(page, '12-viewer-journal');
    // The users section is not offered to a VIEWER; opened anyway, the API's 403 is shown, not a blank page.
    expect(await page.locator('nav.tabs a[href="#users"]').count()).toBe(0);
    await page.evaluate("location.hash = '#users'");
    await page.waitForSelector('#section-users .alert');
    expect(await page.textContent('#section-users .alert')).toMatch(/^You may not see this: \S/);
    await shot(page, '13-viewer-forbidden');
    expect(problemsOf(page)).toEqual([]);
    expect((await readMail(stack, email)).length).toBe(1);
  });
});
