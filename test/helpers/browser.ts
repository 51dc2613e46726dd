import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startTestStack, type TestStack } from './stack';
import type { Registered } from './clients';

// The browser tests' shared parts: the real app listening on a free port, Debian's Chromium driven by
// playwright-core, pages that fail on any script error or refused resource, screenshots in
// test/.tmp/screenshots, and the console's way of showing amounts.

const SHOTS = path.join(__dirname, '..', '.tmp', 'screenshots');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface BrowserStack {
  stack: TestStack;
  port: number;
  workspaceUrl(slug: string, path: string): string;
  /** A page of a fresh context (1200×800) that records its script errors and refused resources (problemsOf). */
  newPage(): Promise<Page>;
  shot(page: Page, name: string): Promise<Buffer>;
  stop(): Promise<void>;
}

/** The app on a free port, as `PUBLIC_URL` says, and Chromium; call in beforeAll (60 s), stop in afterAll. */
export async function startBrowserStack(): Promise<BrowserStack> {
  mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  const stack = await startTestStack({ PUBLIC_URL: `http://localhost:${port}` });
  const server = stack.app.listen(port) as unknown as Server;
  const browser: Browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  return {
    stack,
    port,
    workspaceUrl: (slug, path) => `http://${slug}.localhost:${port}${path}`,
    async newPage() {
      const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      // A script error or a refused resource (CSP) is a failure of the page, whatever the test looks at.
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(err.message));
      page.on('console', (msg) => msg.type() === 'error' && !/status of 4\d\d/.test(msg.text()) && problems.push(msg.text()));
      (page as unknown as { problems: string[] }).problems = problems;
      return page;
    },
    shot: (page, name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true }),
    async stop() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
      await stack.stop();
    },
  };
}

export const problemsOf = (page: Page) => (page as unknown as { problems: string[] }).problems;

/** An amount of the API as the console shows it: the whole part in groups of three, U+202F between them. */
export const grouped = (amount: string): string => amount.replace(/^(-?)([0-9]+)/, (_, sign: string, whole: string) => sign + whole.replace(/\B(?=([0-9]{3})+$)/g, '\u202F'));

/** What `read()` answers once `ok` takes it (or after five seconds, for the test to show): the page's work is asynchronous. */
export async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (let tries = 0; ; tries++) {
    const value = await read();
    if (ok(value) || tries >= 50) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Submits the login form of the user's workspace. */
export async function submitLogin(browser: BrowserStack, page: Page, user: Registered): Promise<void> {
  await page.goto(browser.workspaceUrl(user.me.company.slug, '/login'));
  await page.fill('input[name=email]', user.email);
  await page.fill('input[name=password]', user.password);
  await page.click('button[type=submit]');
}

/** Picks in a combobox by typing `text` and pressing Enter, which takes the exact match once the search answers. */
export async function pick(box: Locator, text: string, shown: RegExp): Promise<void> {
  await box.fill(text);
  await box.press('Enter');
  expect(await until(() => box.inputValue(), (value) => shown.test(value))).toMatch(shown);
}

/** Clicks `selector` and waits for the answer of the request it sends (listening before the click). */
export async function clickFor(page: Page, selector: string, method: string, url: RegExp): Promise<{ status: number; body: Record<string, unknown> }> {
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === method && url.test(new URL(r.url()).pathname)), page.click(selector)]);
  return { status: res.status(), body: (await res.json().catch(() => null)) as Record<string, unknown> };
}
