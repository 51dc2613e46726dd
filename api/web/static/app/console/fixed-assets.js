// @ts-check
// #fixed-assets: the register of fixed assets by status, a form registering one as a DRAFT, the register at a
// date (cost, depreciation, net book value; whether it ties to the ledger and to Form 1), and an asset's card
// drawn in place of the list: its figures, its schedule month by month with what the closes have charged,
// commissioning (a DRAFT) and disposal (an asset in service), with links to the entries they posted.
import { ProblemError, describe } from '../api.js';
import { busy, clearAlert, h, showAlert } from '../dom.js';
import { api, can, company } from '../session.js';
import { accountPicker } from './account-picker.js';
import { alignAmounts, failed, fieldMaker, fieldProblems, money, problemType, table, today } from './common.js';
import { FUNCTIONAL } from './currency.js';
import { entryLinks } from './entry-links.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']} Schemas */
/** @typedef {Schemas['FixedAsset']} FixedAsset */
/** @typedef {import('./common.js').FieldProblem} FieldProblem */
/** @typedef {import('./common.js').WayBack} WayBack */

/** The most assets one read shows; the register report pages through the rest. */
const SHOWN = 100;
const assetsPath = () => `/api/v1/fixed-assets/${company()}`;
const uzs = (/** @type {string} */ amount) => money(amount, FUNCTIONAL);

/** @type {Record<FixedAsset['status'], string>} */
const STATUS = { DRAFT: 'draft', IN_SERVICE: 'in service', FULLY_DEPRECIATED: 'fully depreciated', DISPOSED: 'disposed of' };

/**
 * The problems of a refused request as field problems (the API's `/body/…` paths without the prefix).
 * @param {ProblemError} err
 * @returns {FieldProblem[]}
 */
const namedProblems = (err) => (Array.isArray(err.problem.errors) ? err.problem.errors : []).map((e) => ({ path: (e.path ?? '').replace(/^\/body\/?/, ''), message: e.message ?? 'is not valid' }));

/** @param {HTMLElement} body */
export async function fixedAssets(body) {
  const status = h('select', { name: 'status' },
    h('option', { value: '' }, 'All'),
    ...Object.entries(STATUS).map(([value, label]) => h('option', { value }, label[0].toUpperCase() + label.slice(1))));
  const out = h('div', { id: 'fixed-asset-list', 'aria-live': 'polite', 'aria-busy': 'false' });
  let reading = 0;

  const load = async () => {
    const mine = ++reading;
    out.setAttribute('aria-busy', 'true');
    try {
      const query = new URLSearchParams({ size: String(SHOWN), ...(status.value ? { status: status.value } : {}) });
      const { data } = /** @type {import('../api.js').Reply<'listFixedAssets'>} */ (await api('GET', `${assetsPath()}?${query}`));
      if (mine === reading) draw(data);
    } catch (err) {
      if (mine === reading) failed(out, err);
    } finally {
      if (mine === reading) out.setAttribute('aria-busy', 'false');
    }
  };

  /** @param {Schemas['FixedAssetPage']} data */
  const draw = (data) => {
    const rows = data.items.map((a) => h('tr', { 'data-id': a.id },
      h('td', { class: 'identification' }, h('button', { type: 'button', class: 'link', 'data-action': 'open', 'aria-label': `Open ${a.inventoryNumber} ${a.name}`, onclick: () => openAsset(a.id) }, a.inventoryNumber)),
      h('td', { class: 'name' }, a.name),
      h('td', {}, a.assetAccount),
      h('td', { class: 'num' }, uzs(a.cost)),
      h('td', { class: 'num' }, uzs(a.accumulatedDepreciation)),
      h('td', { class: 'num' }, uzs(a.netBookValue)),
      h('td', {}, h('span', { class: `tag status-${a.status.toLowerCase()}` }, STATUS[a.status]))));
    const t = table(['Inventory no.', 'Name', 'Account', 'Cost', 'Depreciation', 'Net book value', 'Status'], rows);
    alignAmounts(t, [3, 4, 5]);
    out.replaceChildren(
      rows.length === 0 ? h('p', { class: 'muted' }, `No ${status.value ? `${STATUS[/** @type {FixedAsset['status']} */ (status.value)]} ` : ''}fixed assets yet.`) : t,
      data.totalElements > rows.length ? h('p', { class: 'hint' }, `The first ${rows.length} of ${data.totalElements} are shown; the register below pages through all of them.`) : '',
    );
  };

  /** The list's part of the view, kept while a card is drawn in its place. @type {ChildNode[]} */
  let saved = [];
  /** @param {string} id */
  const openAsset = (id) => {
    clearAlert();
    saved = [...body.childNodes];
    /** @type {WayBack} */
    const back = { to: () => {
      clearAlert();
      body.replaceChildren(...saved);
      void load();
      void register.load();
    }, label: '← All fixed assets' };
    assetCard(body, id, back).catch((err) => failed(body, err));
  };

  status.addEventListener('change', () => void load());
  body.replaceChildren(h('h1', { tabindex: -1 }, 'Fixed assets'),
    h('p', { class: 'hint' }, 'The register: an asset is registered as a draft, put in service (commissioning posts its cost), depreciated by every period close from the month after, and disposed of.'));
  if (can('createFixedAsset')) {
    const { open, form } = assetForm((a) => {
      void load();
      showAlert(`Registered ${a.inventoryNumber} ${a.name} as a draft: open it to put it in service.`, 'info');
    });
    body.append(open, form);
  }
  body.append(h('form', { class: 'inline filters', id: 'fixed-asset-filters', role: 'search', onsubmit: (event) => event.preventDefault() }, h('label', {}, 'Show ', status)), out);
  const register = registerReport();
  if (can('getFixedAssetRegister')) body.append(register.element);
  await Promise.all([load(), can('getFixedAssetRegister') ? register.load() : null]);
}

/** The register at a date: its totals beside the ledger's and Form 1's, and whether they tie. */
function registerReport() {
  const asOf = h('input', { type: 'date', name: 'asOf', value: today(), required: true });
  const out = h('div', { class: 'register-figures', 'aria-live': 'polite' });
  const load = async () => {
    try {
      const query = new URLSearchParams({ asOf: asOf.value || today(), size: '1' });
      const { data } = /** @type {import('../api.js').Reply<'getFixedAssetRegister'>} */ (await api('GET', `/api/v1/ledger/${company()}/reports/fixed-assets?${query}`));
      const row = (/** @type {string} */ label, /** @type {Schemas['FixedAssetRegisterAmounts']} */ a) =>
        h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'num' }, uzs(a.cost)), h('td', { class: 'num' }, uzs(a.accumulatedDepreciation)), h('td', { class: 'num' }, uzs(a.netBookValue)));
      const sheet = { cost: data.balanceSheet['010'], accumulatedDepreciation: data.balanceSheet['011'], netBookValue: data.balanceSheet['012'] };
      const t = table(['', 'Cost', 'Depreciation', 'Net book value'], [
        row(`Register (${data.totalElements} ${data.totalElements === 1 ? 'asset' : 'assets'})`, data.totals),
        row('Ledger (0100–0199, 0200–0299)', data.ledger),
        row('Balance sheet (rows 010–012)', sheet),
      ]);
      alignAmounts(t, [1, 2, 3]);
      out.replaceChildren(t, data.ties
        ? h('p', { class: 'tag ok', id: 'register-ties' }, 'Ties to the ledger and to the balance sheet.')
        : h('p', { class: 'alert warning', id: 'register-ties' }, 'Does not tie: an entry reached the fixed-asset or depreciation accounts outside the register (a manual entry), or a leased asset is in row 010.'));
    } catch (err) {
      failed(out, err);
    }
  };
  asOf.addEventListener('change', () => void load());
  const element = h('section', { id: 'fixed-asset-register', class: 'report', 'aria-labelledby': 'fixed-asset-register-title' },
    h('h2', { id: 'fixed-asset-register-title' }, 'Register at a date'),
    h('form', { class: 'inline filters', onsubmit: (event) => event.preventDefault() }, h('label', {}, 'As of ', asOf)),
    out);
  return { element, load };
}

/**
 * The button that opens the form registering an asset, and the form; `added` is told the DRAFT the API created.
 * @param {(a: FixedAsset) => void} added
 */
function assetForm(added) {
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  const field = fieldMaker(places, 'fixed-asset');
  const inventoryNumber = h('input', { name: 'inventoryNumber', maxlength: 50, autocomplete: 'off' });
  const name = h('input', { name: 'name', maxlength: 300, autocomplete: 'off' });
  const assetAccount = h('select', { name: 'assetAccount' }, h('option', { value: '' }, 'Choose…'));
  const cost = h('input', { name: 'cost', inputmode: 'decimal', autocomplete: 'off', class: 'amount' });
  const salvageValue = h('input', { name: 'salvageValue', inputmode: 'decimal', autocomplete: 'off', class: 'amount', placeholder: '0.00' });
  const usefulLifeMonths = h('input', { name: 'usefulLifeMonths', inputmode: 'numeric', autocomplete: 'off', class: 'months' });
  const expenseAccount = accountPicker({ name: 'expenseAccount', label: 'Expense account' });
  const { show, clear } = fieldProblems(places);

  // The chart's fixed-asset accounts that are depreciated (0111–0190; land, 0110, is not).
  const accountsRead = api('GET', `/api/v1/accounting-settings/${company()}/accounts?${new URLSearchParams({ header: 'false', size: '100', q: '01' })}`)
    .then(({ data }) => {
      const items = /** @type {Schemas['CompanyAccountPage']} */ (data).items.filter((a) => /^01(1[1-9]|[2-9][0-9])$/.test(a.code));
      assetAccount.append(...items.map((a) => h('option', { value: a.code }, `${a.code} ${a.name}`)));
    })
    .catch((err) => showAlert(describe(err)));

  /** @returns {FieldProblem[]} */
  const check = () => {
    /** @type {FieldProblem[]} */
    const problems = [];
    const add = (/** @type {string} */ path, /** @type {string | false} */ message) => message && problems.push({ path, message });
    add('inventoryNumber', !inventoryNumber.value.trim() && 'Give the asset its inventory number, e.g. IT-001.');
    add('name', !name.value.trim() && 'Name the asset, e.g. “Laptop Dell Latitude”.');
    add('assetAccount', !assetAccount.value && 'Choose the fixed-asset account.');
    add('cost', !/^[0-9]+(\.[0-9]{1,2})?$/.test(cost.value.trim()) && 'The cost is an amount in UZS, e.g. 12000000 or 12000000.00.');
    add('salvageValue', Boolean(salvageValue.value.trim()) && !/^[0-9]+(\.[0-9]{1,2})?$/.test(salvageValue.value.trim()) && 'The salvage value is an amount in UZS, or empty for none.');
    add('usefulLifeMonths', !/^[1-9][0-9]*$/.test(usefulLifeMonths.value.trim()) && 'The useful life is a whole number of months, e.g. 60.');
    add('expenseAccount', Boolean(expenseAccount.text()) && !/^[0-9]{4}$/.test(expenseAccount.value()) && `“${expenseAccount.text()}” is not an account of the chart; choose one from the list, or leave it empty.`);
    return problems;
  };

  const form = h('form', { id: 'fixed-asset-form', class: 'fixed-asset-form', novalidate: true, hidden: true },
    h('div', { class: 'field-row' },
      field('inventoryNumber', 'Inventory number', inventoryNumber),
      field('name', 'Name', name),
      field('assetAccount', 'Account', assetAccount, 'Its depreciation account is the matching 02xx one.')),
    h('div', { class: 'field-row' },
      field('cost', 'Cost (UZS)', cost),
      field('salvageValue', 'Salvage value (UZS)', salvageValue, 'What it is worth at the end; empty for none.'),
      field('usefulLifeMonths', 'Useful life (months)', usefulLifeMonths)),
    h('div', { class: 'field-row' },
      field('expenseAccount', 'Expense account', expenseAccount.element, 'What the monthly charge is debited to; left empty: 9420, administrative expenses.', expenseAccount.input)),
    h('div', { class: 'form-actions' },
      h('button', { type: 'submit' }, 'Register the asset'),
      h('button', { type: 'button', class: 'link', onclick: () => {
        form.hidden = true;
        open.hidden = false;
        open.focus();
      } }, 'Cancel')));
  const open = h('button', { type: 'button', id: 'new-fixed-asset', class: 'section-action', onclick: () => {
    open.hidden = true;
    form.hidden = false;
    inventoryNumber.focus();
  } }, 'Register an asset');

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const problems = check();
    if (problems.length) {
      show(problems);
      showAlert('Check the fields marked below.');
      return /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'))?.focus();
    }
    clear();
    const details = /** @satisfies {import('../api.js').RequestBody<'createFixedAsset'>} */ ({
      inventoryNumber: inventoryNumber.value.trim(),
      name: name.value.trim(),
      assetAccount: assetAccount.value,
      cost: cost.value.trim(),
      ...(salvageValue.value.trim() ? { salvageValue: salvageValue.value.trim() } : {}),
      usefulLifeMonths: Number(usefulLifeMonths.value.trim()),
      ...(expenseAccount.value() ? { expenseAccount: expenseAccount.value() } : {}),
    });
    void busy(form, async () => {
      try {
        await accountsRead;
        const { data } = /** @type {import('../api.js').Reply<'createFixedAsset'>} */ (await api('POST', assetsPath(), details));
        form.reset();
        expenseAccount.choose(null);
        form.hidden = true;
        open.hidden = false;
        added(data);
      } catch (err) {
        if (!(err instanceof ProblemError)) return showAlert(describe(err));
        const named = problemType(err) === 'inventory-number-exists'
          ? [{ path: 'inventoryNumber', message: 'Another asset of the company has this inventory number.' }]
          : namedProblems(err);
        const elsewhere = show(named);
        showAlert(named.length > elsewhere.length ? `${err.problem.title ?? 'Not registered'}: check the fields marked below.` : describe(err));
        /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'))?.focus();
      }
    });
  });
  return { open, form };
}

/**
 * An asset's card in place of the list: its figures, its entries, its schedule, and what may be done next.
 * @param {HTMLElement} body
 * @param {string} id
 * @param {WayBack} back
 */
async function assetCard(body, id, back) {
  const [{ data: asset }, { data: schedule }] = await Promise.all([
    /** @type {Promise<import('../api.js').Reply<'getFixedAsset'>>} */ (api('GET', `${assetsPath()}/${id}`)),
    /** @type {Promise<import('../api.js').Reply<'getDepreciationSchedule'>>} */ (api('GET', `${assetsPath()}/${id}/schedule`)),
  ]);
  const again = () => void assetCard(body, id, back).catch((err) => failed(body, err));
  const entryIds = [asset.commissioningEntryId, asset.disposalEntryId].filter((e) => e !== null);
  const link = await entryLinks(body, entryIds, again, `← Back to ${asset.inventoryNumber}`);

  const facts = h('dl', { class: 'facts', id: 'fixed-asset-facts' },
    h('dt', {}, 'Status'), h('dd', {}, h('span', { class: `tag status-${asset.status.toLowerCase()}` }, STATUS[asset.status])),
    h('dt', {}, 'Accounts'), h('dd', {}, `${asset.assetAccount} · depreciation ${asset.depreciationAccount} · expense ${asset.expenseAccount}`),
    h('dt', {}, 'Cost'), h('dd', {}, uzs(asset.cost)),
    h('dt', {}, 'Salvage value'), h('dd', {}, uzs(asset.salvageValue)),
    h('dt', {}, 'Useful life'), h('dd', {}, `${asset.usefulLifeMonths} months, `, uzs(asset.monthlyCharge), ' a month'),
    h('dt', {}, 'Depreciation'), h('dd', { id: 'fixed-asset-accumulated' }, uzs(asset.accumulatedDepreciation), asset.depreciatedThrough ? ` through ${asset.depreciatedThrough}` : ''),
    h('dt', {}, 'Net book value'), h('dd', { id: 'fixed-asset-nbv' }, uzs(asset.netBookValue)),
    ...(asset.commissionedOn && asset.commissioningEntryId ? [h('dt', {}, 'In service'), h('dd', {}, `since ${asset.commissionedOn} · `, link(asset.commissioningEntryId, 'commissioning-entry'))] : []),
    ...(asset.disposedOn && asset.disposalEntryId ? [h('dt', {}, 'Disposed of'), h('dd', {}, `on ${asset.disposedOn} to ${asset.disposalAccount} · `, link(asset.disposalEntryId, 'disposal-entry'))] : []));

  const rows = schedule.months.map((m) => h('tr', { class: m.charged ? 'charged' : undefined },
    h('td', {}, m.month),
    h('td', { class: 'num' }, uzs(m.charge)),
    h('td', { class: 'num' }, uzs(m.accumulated)),
    h('td', { class: 'num' }, uzs(m.netBookValue)),
    h('td', {}, m.charged ? h('span', { class: 'tag ok' }, 'charged') : '')));
  const scheduleTable = table(['Month', 'Charge', 'Accumulated', 'Net book value', ''], rows);
  scheduleTable.id = 'fixed-asset-schedule';
  alignAmounts(scheduleTable, [1, 2, 3]);

  body.replaceChildren(
    h('p', {}, h('button', { type: 'button', class: 'link', id: 'fixed-asset-back', onclick: back.to }, back.label)),
    h('h1', { tabindex: -1 }, `${asset.inventoryNumber} ${asset.name}`),
    facts,
    action(asset, again),
    h('h2', {}, asset.status === 'DRAFT' ? `Schedule if put in service on ${schedule.commissionedOn}` : 'Schedule'),
    scheduleTable);
  /** @type {HTMLElement | null} */ (body.querySelector('h1'))?.focus();
}

/**
 * What may be done with the asset next: commissioning a DRAFT, disposing of one in service.
 * @param {FixedAsset} asset
 * @param {() => void} again draws the card anew
 */
function action(asset, again) {
  const commissioning = asset.status === 'DRAFT' && can('commissionFixedAsset');
  const disposal = (asset.status === 'IN_SERVICE' || asset.status === 'FULLY_DEPRECIATED') && can('disposeFixedAsset');
  if (!commissioning && !disposal) return '';
  /** @type {Map<string, { controls: HTMLElement[], error: HTMLElement }>} */
  const places = new Map();
  const field = fieldMaker(places, 'fixed-asset-action');
  const date = h('input', { type: 'date', name: 'date', value: today(), required: true });
  const disposalAccount = h('input', { name: 'disposalAccount', value: '9210', inputmode: 'numeric', maxlength: 4, autocomplete: 'off', class: 'account-code' });
  const { show } = fieldProblems(places);
  const form = h('form', { id: commissioning ? 'commission-form' : 'dispose-form', class: 'inline', novalidate: true },
    field('date', commissioning ? 'Put in service on' : 'Disposed of on', date, commissioning ? 'Depreciation starts the month after.' : 'The months no close has charged are charged with it.'),
    ...(disposal ? [field('disposalAccount', 'Net book value to', disposalAccount, '9210, disposal of fixed assets, unless said.')] : []),
    h('button', { type: 'submit' }, commissioning ? `Put in service (Dr ${asset.assetAccount} / Cr ${asset.sourceAccount})` : 'Dispose of the asset'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    void busy(form, async () => {
      try {
        if (commissioning) {
          await api('POST', `${assetsPath()}/${asset.id}/commissioning`, /** @satisfies {import('../api.js').RequestBody<'commissionFixedAsset'>} */ ({ date: date.value, expectedVersion: asset.version }));
          showAlert(`${asset.inventoryNumber} is in service from ${date.value}.`, 'info');
        } else {
          const body = /** @satisfies {import('../api.js').RequestBody<'disposeFixedAsset'>} */ ({ date: date.value, disposalAccount: disposalAccount.value.trim(), expectedVersion: asset.version });
          await api('POST', `${assetsPath()}/${asset.id}/disposal`, body);
          showAlert(`${asset.inventoryNumber} was disposed of on ${date.value}.`, 'info');
        }
        again();
      } catch (err) {
        if (!(err instanceof ProblemError)) return showAlert(describe(err));
        const elsewhere = show(namedProblems(err));
        showAlert(problemType(err) === 'stale-version' ? 'The asset changed meanwhile (a close charged it?): it is shown anew; try again.' : describe(err));
        if (problemType(err) === 'stale-version') again();
        else if (elsewhere.length === 0) /** @type {HTMLElement | null} */ (form.querySelector('[aria-invalid=true]'))?.focus();
      }
    });
  });
  return h('section', { class: 'actions' }, form);
}
