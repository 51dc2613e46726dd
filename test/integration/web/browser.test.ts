// The web pages as a person uses them: Debian's Chromium driven by playwright-core, against the real app
// listening on a port, its worker, PostgreSQL and Temporal. Screenshots of every page land in
// test/.tmp/screenshots (look at them when a page changes).
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { PASSWORD, api, bearer, readMail, registerWorkspace, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { codeFrom, enableEmailFactor, enableTotp, mailCount, totpCode } from '../../helpers/second-factors';

const SHOTS = path.join(__dirname, '..', '..', '.tmp', 'screenshots');
let stack: TestStack;
let server: Server;
let port: number;
let browser: Browser;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, resolve));
  const { port: free } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  port = await freePort();
  stack = await startTestStack({ PUBLIC_URL: `http://localhost:${port}` });
  server = stack.app.listen(port) as unknown as Server;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await stack.stop();
});

const workspaceUrl = (slug: string, path: string) => `http://${slug}.localhost:${port}${path}`;

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // A script error or a refused resource (CSP) is a failure of the page, whatever the test looks at.
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && !/status of 4\d\d/.test(msg.text()) && problems.push(msg.text()));
  (page as unknown as { problems: string[] }).problems = problems;
  return page;
}

const problemsOf = (page: Page) => (page as unknown as { problems: string[] }).problems;
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

async function logIn(page: Page, user: Registered): Promise<void> {
  await page.goto(workspaceUrl(user.me.company.slug, '/login'));
  await page.fill('input[name=email]', user.email);
  await page.fill('input[name=password]', user.password);
  await page.click('button[type=submit]');
}

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
    const codes = page.locator('input[name=accountCode]');
    await codes.nth(0).fill('5110');
    await page.locator('input[name=debit]').nth(0).fill('1250.50');
    await codes.nth(1).fill('9010');
    await page.locator('input[name=credit]').nth(1).fill('1250.5');
    await expect(page.textContent('#entry-total')).resolves.toContain('Debit 1250.50 · Credit 1250.50 · balanced');
    await page.click('form#post-entry button[type=submit]');
    await page.waitForSelector('#alert.info');
    expect(await page.textContent('#alert')).toContain('Posted entry 1');
    await page.waitForSelector('td:text-is("Cash sale")');
    await shot(page, '06-journal');

    await page.click('text=Trial balance');
    await page.fill('input[name=asOf]', '2025-01-31');
    await page.click('form.inline button');
    await page.waitForSelector('#total-debit:text-is("1250.50")');
    expect(await page.textContent('#total-credit')).toBe('1250.50');
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
