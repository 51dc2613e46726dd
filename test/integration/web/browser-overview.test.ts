// The console's overview, with its own stack: a company with a sale, a purchase and an expense this month shows
// the same figures as getCompanyOverview, each linking to the section behind it. Screenshots land in
// test/.tmp/screenshots (look at them when the page changes).
import type { TestStack } from '../../helpers/stack';
import { grouped, problemsOf, startBrowserStack, submitLogin, until, type BrowserStack } from '../../helpers/browser';
import { api, bearer, registerWorkspace } from '../../helpers/clients';
import { entryBody, ledgerApi } from '../../helpers/ledger';
import { aCounterparty, invoicesApi, purchaseBody, salesBody, saveTaxSettings } from '../../helpers/invoices';

let web: BrowserStack;
let stack: TestStack;
beforeAll(async () => {
  web = await startBrowserStack();
  ({ stack } = web);
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

describe('the console overview', () => {
  test('the figures of getCompanyOverview, grouped, each a link to its section; the twelve months with this one last', async () => {
    const user = await registerWorkspace(stack);
    await saveTaxSettings(stack, user);
    const today = new Date().toISOString().slice(0, 10);
    const ledger = ledgerApi(stack, user);
    await ledger.post(entryBody(today, [{ accountCode: '5110', debit: '25000000.00' }, { accountCode: '8330', credit: '25000000.00' }])).expect(201);
    await ledger.post(entryBody(today, [{ accountCode: '9420', debit: '400000.00' }, { accountCode: '5110', credit: '400000.00' }])).expect(201);
    const invoices = invoicesApi(stack, user);
    const customer = await aCounterparty(stack, user);
    const sale = (await invoices.create(salesBody(customer, today, { lines: [{ description: 'Goods', quantity: '2', unitPrice: '1500000.00' }] })).expect(201)).body;
    await invoices.post(sale.id).expect(200);
    const bought = (await invoices.create(purchaseBody(customer, today, 'P-9')).expect(201)).body;
    await invoices.post(bought.id).expect(200);
    await invoices.create(salesBody(customer, today)).expect(201);
    const expected = (await api(stack).get(`/api/v1/ledger/${user.me.company.id}/overview`).query({ asOf: today }).set(...bearer(user.accessToken)).expect(200)).body;

    const page = await web.newPage();
    await submitLogin(web, page, user);
    await page.waitForSelector('#roles');
    await page.waitForSelector('#money-UZS');
    const text = async (selector: string) => ((await page.textContent(selector)) ?? '').replace(/[ \t\n]+/g, ' ').trim();
    expect(await text('#money-UZS .figure-value')).toBe(`${grouped('24600000.00')} UZS`);
    expect(expected.money).toEqual([{ currency: 'UZS', balance: '24600000.00', carryingAmount: '24600000.00' }]);
    expect(await text('#receivables-UZS .figure-value')).toBe(`${grouped(expected.receivables[0].outstanding)} UZS`);
    expect(await text('#payables-UZS .figure-value')).toBe(`${grouped(expected.payables[0].outstanding)} UZS`);
    expect(await page.getAttribute('#receivables-UZS', 'href')).toBe('#aging');
    expect(await text('#vat-due .figure-value')).toBe(`${grouped(expected.vat.due)} UZS`);
    expect(expected.vat).toMatchObject({ output: '360000.00', input: '120.00', due: '359880.00' });
    expect(await page.getAttribute('#vat-due', 'href')).toBe('#vat-register');
    expect(await text('#waiting-drafts .figure-value')).toBe('1');
    expect(await page.getAttribute('#waiting-drafts', 'href')).toBe('#invoices');
    // Twelve months, this one last with its revenue and expenses.
    expect(await page.locator('#overview-months tbody tr').count()).toBe(12);
    const month = expected.months.at(-1) as { month: string; revenue: string; expenses: string; result: string };
    expect(month).toMatchObject({ month: today.slice(0, 7), revenue: '3000000.00', expenses: '400000.00', result: '2600000.00' });
    expect(await page.locator(`#overview-months tr[data-month="${month.month}"] td`).allTextContents()).toEqual([
      month.month,
      ...[month.revenue, month.expenses, month.result].map((a) => `${grouped(a)} UZS`),
    ]);
    // The charts: uPlot from our own origin, one canvas each, with their legends; each a link to its report.
    await page.waitForSelector('#chart-months canvas');
    await page.waitForSelector('#chart-aging canvas');
    await page.waitForSelector('#chart-cash canvas');
    expect(await page.getAttribute('a.chart-link:has(#chart-cash)', 'href')).toBe('#trial-balance');
    expect(await page.locator('#chart-months .u-legend .u-series th').allTextContents()).toEqual(expect.arrayContaining(['Revenue', 'Expenses']));
    expect(await page.evaluate("document.querySelector('#chart-months canvas').width > 0 && document.querySelector('#chart-aging canvas').height > 0")).toBe(true);
    expect(await page.getAttribute('a.chart-link:has(#chart-aging)', 'href')).toBe('#aging');
    await web.shot(page, '05-console-overview');
    // A figure opens its section.
    await page.click('#waiting-drafts');
    await until(() => page.evaluate('location.hash'), (hash) => hash === '#invoices');
    await page.waitForSelector('#section-invoices');
    expect(problemsOf(page)).toEqual([]);
  }, 90_000);

  test('when the chart library cannot be loaded, the figures and the months are all there, without charts', async () => {
    const user = await registerWorkspace(stack);
    const page = await web.newPage();
    await page.route('**/app/vendor/uplot.js', (route) => route.abort());
    await submitLogin(web, page, user);
    await page.waitForSelector('#overview-months tbody tr');
    expect(await page.locator('#overview-months tbody tr').count()).toBe(12);
    expect(await page.locator('#money-none').count()).toBe(1);
    expect(await page.locator('#overview-charts canvas').count()).toBe(0);
  }, 60_000);
});
