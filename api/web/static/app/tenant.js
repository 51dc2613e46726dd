// The pages of a workspace host: /login, /invitations/accept and the console (/console). One page, so the
// session (access and refresh token) lives in this page's memory only: never in storage, gone on reload.
import { ProblemError, call, describe } from './api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from './dom.js';
import { AMOUNT, formatMinor, toMinor } from './money.js';

const view = document.getElementById('view');
let session = null; // { accessToken, refreshToken, me, permissions }
let refreshing = null;
let poller = null;
let invitationToken = null; // read from the invitation link, then kept only here

// ---- session ---------------------------------------------------------------------------------------------

/** An API call with the session's access token; one refresh (one-time token) when the token has expired. */
async function api(method, path, body) {
  if (!session) throw new ProblemError(401, { title: 'You are not logged in' });
  try {
    return await call(method, path, { body, token: session.accessToken });
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status !== 401 || !session) throw err;
    await refresh();
    return call(method, path, { body, token: session.accessToken });
  }
}

async function refresh() {
  refreshing ??= call('POST', '/api/v1/auth/refresh', { body: { refreshToken: session.refreshToken } })
    .then((res) => {
      session.accessToken = res.data.accessToken;
      session.refreshToken = res.data.refreshToken;
    })
    .catch((err) => {
      // A refresh token is good once; after any failure the only way on is to log in again.
      endSession('Your session has ended; log in again.');
      throw err;
    })
    .finally(() => (refreshing = null));
  return refreshing;
}

async function startSession(tokens) {
  session = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, me: null, permissions: new Set() };
  const [me, access] = await Promise.all([api('GET', '/api/v1/me'), api('GET', '/api/v1/me/access')]);
  session.me = me.data;
  session.permissions = new Set(access.data.permissions);
  document.getElementById('who').textContent = `${session.me.company.name ?? session.me.company.slug} · ${session.me.roles.join(', ')}`;
  document.getElementById('logout').hidden = false;
  navigate('/console#overview');
}

function endSession(message) {
  session = null;
  stopPolling();
  document.getElementById('who').textContent = '';
  document.getElementById('logout').hidden = true;
  navigate('/login');
  if (message) showAlert(message, 'info');
}

document.getElementById('logout').addEventListener('click', async () => {
  const ending = session;
  if (!ending) return;
  await call('POST', '/api/v1/auth/logout', { token: ending.accessToken, body: { refreshToken: ending.refreshToken } }).catch(() => undefined);
  endSession('You have logged out.');
});

const can = (permission) => Boolean(session?.permissions.has(permission));

// ---- routing ---------------------------------------------------------------------------------------------

function navigate(url) {
  history.pushState(null, '', url);
  render();
}

window.addEventListener('popstate', () => render());
window.addEventListener('hashchange', () => render());

function render() {
  stopPolling();
  clearAlert();
  if (location.pathname === '/invitations/accept' && !session) return acceptView();
  if (!session) {
    if (location.pathname !== '/login') history.replaceState(null, '', '/login');
    return loginView();
  }
  if (location.pathname !== '/console') history.replaceState(null, '', '/console#overview');
  return consoleView((location.hash || '#overview').slice(1));
}

// ---- login and the second factor -------------------------------------------------------------------------

function loginView() {
  // From the registration page: the email and the challenge already mailed travel in the fragment.
  const handoff = new URLSearchParams(location.hash.slice(1));
  if (handoff.get('email') && ['EMAIL', 'TOTP'].includes(handoff.get('channel'))) {
    history.replaceState(null, '', '/login');
    const challenge = { channel: handoff.get('channel'), challengeId: handoff.get('challengeId'), expiresAt: handoff.get('expiresAt') };
    return factorView({ email: handoff.get('email'), password: null }, challenge);
  }
  const form = h(
    'form',
    { id: 'login', novalidate: true },
    h('label', {}, 'Email ', h('input', { name: 'email', type: 'email', autocomplete: 'username', required: true, maxlength: 320 })),
    h('label', {}, 'Password ', h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 72 })),
    h('button', { type: 'submit' }, 'Log in'),
    h('button', { type: 'button', class: 'link', id: 'forgot', onclick: () => void forgotPassword(form) }, 'Forgot your password?'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const { email, password } = fieldsOf(form);
    void busy(form, () => login({ email, password }));
  });
  view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Log in'), form));
}

/** Mails a link to choose a new password; the answer is the same whether or not the address has an account. */
async function forgotPassword(form) {
  clearAlert();
  const { email } = fieldsOf(form);
  if (!email) return showAlert('Type your email first.');
  await busy(form, async () => {
    try {
      await call('POST', '/api/v1/auth/password-reset/request', { body: { email } });
      showAlert('If the address belongs to an account, a link to choose a new password is on its way.', 'info');
    } catch (err) {
      showAlert(describe(err));
    }
  });
}

/** POST /auth/login; a 202 asks for the factor, and the same request is repeated with it. */
async function login(credentials) {
  try {
    const res = await call('POST', '/api/v1/auth/login', { body: credentials });
    if (res.status === 202) return factorView(credentials, res.data);
    await startSession(res.data);
  } catch (err) {
    showAlert(describe(err));
  }
}

/** The factor step; with `credentials.password` null (a hand-off from registration) it asks for the password too. */
function factorView(credentials, challenge) {
  const email = challenge.channel === 'EMAIL';
  const password = credentials.password === null
    ? h('label', {}, 'Password ', h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 72 }))
    : null;
  let recovery = false;
  const input = h('input', { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', required: true, maxlength: email ? 8 : 6 });
  const label = h('label', {}, email ? 'Code from the email ' : 'Authenticator code ', input);
  const toggle = h('button', { type: 'button', class: 'link', id: 'use-recovery' }, 'Use a recovery code instead');
  toggle.addEventListener('click', () => {
    recovery = !recovery;
    label.firstChild.textContent = recovery ? 'Recovery code ' : 'Authenticator code ';
    input.removeAttribute('inputmode');
    input.maxLength = recovery ? 19 : 6;
    toggle.textContent = recovery ? 'Use the authenticator instead' : 'Use a recovery code instead';
  });
  const form = h(
    'form',
    { id: 'factor', novalidate: true },
    h('p', {}, email ? `We mailed an 8-digit code to ${credentials.email}. It is valid until ${new Date(challenge.expiresAt).toLocaleTimeString()}.` : 'Enter the 6-digit code of your authenticator app.'),
    password,
    label,
    email ? null : toggle,
    h('button', { type: 'submit' }, 'Continue'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const code = input.value.trim();
    const factor = email ? { challengeId: challenge.challengeId, code } : recovery ? { recoveryCode: code } : { totpCode: code };
    const typed = password ? { password: form.elements.password.value } : {};
    void busy(form, () => login({ ...credentials, ...typed, ...factor }));
  });
  view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Second factor'), form));
  (password ? form.elements.password : input).focus();
}

// ---- invitation acceptance -------------------------------------------------------------------------------

function acceptView() {
  invitationToken = new URLSearchParams(location.search).get('invitation') ?? invitationToken;
  // The token stays in memory only: out of the address bar and the history.
  history.replaceState(null, '', '/invitations/accept');
  if (!invitationToken) {
    view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Join the workspace')));
    return showAlert('This page needs the link from your invitation mail.');
  }
  const form = h(
    'form',
    { id: 'accept', novalidate: true },
    h('p', {}, 'New here: choose a password of at least 15 characters. Already have an account: enter its current password.'),
    h('label', {}, 'Email ', h('input', { name: 'email', type: 'email', autocomplete: 'username', required: true, maxlength: 320 })),
    h('label', {}, 'Password ', h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 72 })),
    h('button', { type: 'submit' }, 'Join'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const { email, password } = fieldsOf(form);
    void busy(form, async () => {
      try {
        const res = await call('POST', '/api/v1/auth/membership-invitations/accept', { body: { token: invitationToken, password } });
        invitationToken = null;
        if (res.status === 202) return factorView({ email, password }, res.data);
        await startSession(res.data);
      } catch (err) {
        showAlert(describe(err));
      }
    });
  });
  view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Join the workspace'), form));
}

// ---- the console -----------------------------------------------------------------------------------------

const SECTIONS = [
  ['overview', 'Overview', () => true],
  ['accounts', 'Chart of accounts', () => can('listCompanyAccounts')],
  ['journal', 'Journal', () => can('listJournalEntries')],
  ['trial-balance', 'Trial balance', () => can('getTrialBalance')],
  ['periods', 'Period closes', () => can('listPeriodCloses')],
  ['users', 'Users and invitations', () => can('listUsers')],
];

function consoleView(section) {
  const visible = SECTIONS.filter(([, , shown]) => shown());
  const nav = h('nav', { class: 'tabs' }, visible.map(([id, label]) => h('a', { href: `#${id}`, class: id === section ? 'active' : '' }, label)));
  const body = h('section', { id: `section-${section}` });
  view.replaceChildren(nav, body);
  const sections = { overview, accounts, journal, 'trial-balance': trialBalance, periods, users };
  const draw = sections[section] ?? overview;
  Promise.resolve(draw(body)).catch((err) => failed(body, err));
}

/** A failed section read: the problem's words in the section itself, never a blank page. */
function failed(body, err) {
  body.replaceChildren(h('p', { class: 'alert error', role: 'alert' }, err instanceof ProblemError && err.status === 403 ? `You may not see this: ${describe(err)}` : describe(err)));
}

const company = () => session.me.company.id;
const today = () => new Date().toISOString().slice(0, 10);
const uuid = () => crypto.randomUUID();

/** A table of `headers` over `rows` (table rows, or a tbody to keep). */
function table(headers, rows) {
  const body = rows instanceof HTMLTableSectionElement ? rows : h('tbody', {}, rows);
  return h('table', {}, h('thead', {}, h('tr', {}, headers.map((x) => h('th', {}, x)))), body);
}

function overview(body) {
  const me = session.me;
  body.append(
    h('h1', {}, me.company.name ?? 'Your workspace'),
    h('dl', {}, h('dt', {}, 'Workspace'), h('dd', {}, me.company.slug), h('dt', {}, 'Your roles'), h('dd', { id: 'roles' }, me.roles.join(', ')), h('dt', {}, 'Membership'), h('dd', {}, me.membershipId)),
  );
}

async function accounts(body) {
  const search = h('input', { type: 'search', name: 'q', placeholder: 'Code or name', maxlength: 100 });
  const results = h('div');
  const load = async () => {
    const q = search.value.trim();
    const res = await api('GET', `/api/v1/accounting-settings/${company()}/accounts?${new URLSearchParams({ size: '100', ...(q ? { q } : {}) })}`);
    results.replaceChildren(
      h('p', { class: 'muted' }, `${res.data.totalElements} accounts`),
      table(['Code', 'Name', 'Type', 'Enabled'], res.data.items.map((a) => h('tr', {}, h('td', {}, a.code), h('td', {}, a.name), h('td', {}, a.type), h('td', {}, a.enabled ? 'yes' : 'no')))),
    );
  };
  const form = h('form', { class: 'inline', role: 'search' }, search, h('button', { type: 'submit' }, 'Search'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    load().catch((err) => failed(results, err));
  });
  body.append(h('h1', {}, 'Chart of accounts'), form, results);
  await load();
}

async function journal(body) {
  body.append(h('h1', {}, 'Journal'));
  const again = () => {
    body.replaceChildren();
    journal(body).catch((err) => failed(body, err));
  };
  if (can('postJournalEntry')) body.append(entryForm(again));
  const list = h('div');
  body.append(h('h2', {}, 'Entries'), list);
  const res = await api('GET', `/api/v1/ledger/${company()}/entries?size=50`);
  list.replaceChildren(
    res.data.items.length === 0
      ? h('p', { class: 'muted' }, 'No entries yet.')
      : table(
          ['No.', 'Date', 'Description', 'Amount', ''],
          res.data.items.map((e) =>
            h('tr', {}, h('td', {}, e.number), h('td', {}, e.entryDate), h('td', {}, e.description), h('td', { class: 'num' }, e.totalDebit),
              h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => showEntry(body, e.id) }, 'Open'))),
          ),
        ),
  );
}

function entryForm(done) {
  const lines = h('tbody');
  const total = h('p', { class: 'muted', id: 'entry-total' });
  const line = (code = '', debit = '', credit = '') =>
    h('tr', {}, h('td', {}, h('input', { name: 'accountCode', value: code, pattern: '[0-9]{4}', maxlength: 4, required: true, 'aria-label': 'Account code' })),
      h('td', {}, h('input', { name: 'debit', value: debit, inputmode: 'decimal', 'aria-label': 'Debit' })),
      h('td', {}, h('input', { name: 'credit', value: credit, inputmode: 'decimal', 'aria-label': 'Credit' })));
  lines.append(line(), line());
  const readLines = () =>
    [...lines.children].map((tr) => {
      const [code, debit, credit] = [...tr.querySelectorAll('input')].map((i) => i.value.trim());
      return { accountCode: code, debit: debit || '0', credit: credit || '0' };
    }).filter((l) => l.accountCode || l.debit !== '0' || l.credit !== '0');
  const sum = () => {
    const ls = readLines();
    if (ls.some((l) => !AMOUNT.test(l.debit) || !AMOUNT.test(l.credit))) return (total.textContent = 'Amounts are decimals with at most two places, e.g. 1250.00'), null;
    const debit = ls.reduce((s, l) => s + toMinor(l.debit), 0n);
    const credit = ls.reduce((s, l) => s + toMinor(l.credit), 0n);
    total.textContent = `Debit ${formatMinor(debit)} · Credit ${formatMinor(credit)}${debit === credit ? ' · balanced' : ' · not balanced'}`;
    return { ls, balanced: debit === credit && debit > 0n };
  };
  lines.addEventListener('input', sum);
  const form = h(
    'form',
    { id: 'post-entry', novalidate: true },
    h('h2', {}, 'Post an entry'),
    h('label', {}, 'Date ', h('input', { name: 'entryDate', type: 'date', required: true, value: today() })),
    h('label', {}, 'Description ', h('input', { name: 'description', required: true, maxlength: 500 })),
    table(['Account', 'Debit', 'Credit'], lines),
    h('button', { type: 'button', class: 'link', onclick: () => lines.append(line()) }, 'Add a line'),
    total,
    h('button', { type: 'submit' }, 'Post'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const checked = sum();
    if (!checked) return showAlert('Some amount is not a decimal with at most two places.');
    if (!checked.balanced) return showAlert('Debits and credits must be equal and more than zero.');
    const f = fieldsOf(form);
    void busy(form, async () => {
      try {
        const res = await api('POST', `/api/v1/ledger/${company()}/entries`, { requestId: uuid(), entryDate: f.entryDate, description: f.description, lines: checked.ls });
        showAlert(`Posted entry ${res.data.number}.`, 'info');
        done();
      } catch (err) {
        showAlert(describe(err));
      }
    });
  });
  return form;
}

async function showEntry(body, id) {
  const { data: e } = await api('GET', `/api/v1/ledger/${company()}/entries/${id}`);
  const back = h('button', { type: 'button', class: 'link', onclick: () => render() }, '← All entries');
  const parts = [
    back,
    h('h1', {}, `Entry ${e.number}: ${e.description}`),
    h('p', {}, `Dated ${e.entryDate}, posted ${new Date(e.postedAt).toLocaleString()}`, e.reversalOf ? ' · reverses another entry' : '', e.reversedBy ? ' · reversed' : ''),
    table(['Line', 'Account', 'Debit', 'Credit', 'Memo'], e.lines.map((l) => h('tr', {}, h('td', {}, l.lineNo), h('td', {}, l.accountCode), h('td', { class: 'num' }, l.debit), h('td', { class: 'num' }, l.credit), h('td', {}, l.memo ?? '')))),
  ];
  if (can('reverseJournalEntry') && !e.reversedBy && !e.reversalOf) {
    const form = h('form', { id: 'reverse', class: 'inline', novalidate: true },
      h('label', {}, 'Reverse on ', h('input', { name: 'entryDate', type: 'date', required: true, value: today() })),
      h('label', {}, 'because ', h('input', { name: 'reason', required: true, maxlength: 400 })),
      h('button', { type: 'submit' }, 'Reverse'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const f = fieldsOf(form);
      void busy(form, async () => {
        try {
          const res = await api('POST', `/api/v1/ledger/${company()}/entries/${id}/reversal`, { requestId: uuid(), entryDate: f.entryDate, reason: f.reason });
          showAlert(`Reversed by entry ${res.data.number}.`, 'info');
          await showEntry(body, id);
        } catch (err) {
          showAlert(describe(err));
        }
      });
    });
    parts.push(form);
  }
  body.replaceChildren(...parts);
}

async function trialBalance(body) {
  const asOf = h('input', { type: 'date', name: 'asOf', value: today(), required: true });
  const out = h('div');
  const load = async () => {
    const { data } = await api('GET', `/api/v1/ledger/${company()}/trial-balance?asOf=${asOf.value}`);
    out.replaceChildren(
      table(['Code', 'Account', 'Debit', 'Credit', 'Balance'], [
        ...data.lines.map((l) => h('tr', {}, h('td', {}, l.code), h('td', {}, l.name), h('td', { class: 'num' }, l.debit), h('td', { class: 'num' }, l.credit), h('td', { class: 'num' }, l.balance))),
        h('tr', { class: 'total' }, h('td', {}), h('td', {}, 'Total'), h('td', { class: 'num', id: 'total-debit' }, data.totalDebit), h('td', { class: 'num', id: 'total-credit' }, data.totalCredit), h('td', {})),
      ]),
    );
  };
  const form = h('form', { class: 'inline' }, h('label', {}, 'As of ', asOf), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    load().catch((err) => failed(out, err));
  });
  body.append(h('h1', {}, 'Trial balance'), form, out);
  await load();
}

function stopPolling() {
  clearTimeout(poller);
  poller = null;
}

async function periods(body) {
  const list = h('div');
  const load = async () => {
    const { data: closes } = await api('GET', `/api/v1/ledger/${company()}/periods`);
    list.replaceChildren(
      closes.length === 0
        ? h('p', { class: 'muted' }, 'No period has been closed.')
        : table(['Closed through', 'Status', 'Requested', 'Entries', ''], closes.map((c) =>
            h('tr', {}, h('td', {}, c.closeDate), h('td', { class: `status ${c.status}` }, c.status), h('td', {}, new Date(c.requestedAt).toLocaleString()),
              h('td', {}, c.entryCount ?? ''), h('td', {}, c.failureReason ?? '')))),
    );
    // A close runs in the background: poll while one is RUNNING.
    if (closes.some((c) => c.status === 'RUNNING')) poller = setTimeout(() => load().catch((err) => failed(list, err)), 1000);
  };
  body.append(h('h1', {}, 'Period closes'));
  if (can('closePeriod')) {
    const form = h('form', { id: 'close-period', class: 'inline', novalidate: true },
      h('label', {}, 'Close through ', h('input', { name: 'closeDate', type: 'date', required: true })),
      h('button', { type: 'submit' }, 'Close period'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      clearAlert();
      const { closeDate } = fieldsOf(form);
      void busy(form, async () => {
        try {
          await api('POST', `/api/v1/ledger/${company()}/periods/close`, { requestId: uuid(), closeDate });
          stopPolling();
          await load();
        } catch (err) {
          showAlert(describe(err));
        }
      });
    });
    body.append(form);
  }
  body.append(list);
  await load();
}

async function users(body) {
  body.append(h('h1', {}, 'Users and invitations'));
  if (can('createInvitation')) {
    const roles = ['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER'];
    const form = h('form', { id: 'invite', class: 'inline', novalidate: true },
      h('label', {}, 'Email ', h('input', { name: 'email', type: 'email', required: true, maxlength: 320 })),
      h('label', {}, 'Role ', h('select', { name: 'role' }, roles.map((r) => h('option', { value: r, selected: r === 'VIEWER' }, r)))),
      h('button', { type: 'submit' }, 'Invite by email'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      clearAlert();
      const f = fieldsOf(form);
      void busy(form, async () => {
        try {
          const res = await api('POST', '/api/v1/membership-invitations?delivery=EMAIL', { email: f.email, roles: [f.role] });
          showAlert(`Invitation mailed to ${f.email}; valid until ${new Date(res.data.expiresAt).toLocaleString()}.`, 'info');
        } catch (err) {
          showAlert(describe(err));
        }
      });
    });
    body.append(form);
  }
  const { data } = await api('GET', '/api/v1/users?size=100');
  body.append(table(['Name', 'Email', 'Roles', 'Status', 'Last login'], data.items.map((u) =>
    h('tr', {}, h('td', {}, u.displayName), h('td', {}, u.email), h('td', {}, u.roles.join(', ')), h('td', {}, u.status), h('td', {}, u.lastLogin ? new Date(u.lastLogin).toLocaleString() : '')))));
}

render();
