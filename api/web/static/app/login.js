// @ts-check
// /login on a workspace host: email and password, then the second factor the API asks for.
import { call, describe } from './api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from './dom.js';
import { startSession } from './session.js';

/** @typedef {import('../../../../contracts/openapi').components['schemas']['EmailChallengeResponse']} Challenge */
/** @typedef {import('../../../../contracts/openapi').components['schemas']['LoginRequest']} LoginRequest */

/**
 * The login form; a hand-off from the registration page (email and challenge in the fragment) goes to the factor step.
 * @param {HTMLElement} view
 */
export function loginView(view) {
  const handoff = new URLSearchParams(location.hash.slice(1));
  const handoffEmail = handoff.get('email');
  const channel = handoff.get('channel');
  if (handoffEmail && (channel === 'EMAIL' || channel === 'TOTP')) {
    history.replaceState(null, '', '/login');
    /** @type {Challenge} */
    const challenge = { channel, challengeId: handoff.get('challengeId'), expiresAt: handoff.get('expiresAt') };
    return factorView(view, { email: handoffEmail, password: null }, challenge);
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
    void busy(form, () => login(view, { email, password }));
  });
  view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Log in'), form));
}

/**
 * Mails a link to choose a new password; the answer is the same whether or not the address has an account.
 * @param {HTMLFormElement} form
 */
async function forgotPassword(form) {
  clearAlert();
  const { email } = fieldsOf(form);
  if (!email) return showAlert('Type your email first.');
  await busy(form, async () => {
    try {
      await call('POST', '/api/v1/auth/password-reset/request', { body: /** @satisfies {import('./api.js').RequestBody<'requestPasswordReset'>} */ ({ email }) });
      showAlert('If the address belongs to an account, a link to choose a new password is on its way.', 'info');
    } catch (err) {
      showAlert(describe(err));
    }
  });
}

/**
 * POST /auth/login; a 202 asks for the factor, and the same request is repeated with it.
 * @param {HTMLElement} view
 * @param {LoginRequest} credentials
 */
async function login(view, credentials) {
  try {
    const res = /** @type {import('./api.js').Reply<'login'>} */ (await call('POST', '/api/v1/auth/login', { body: credentials }));
    if (res.status === 202) return factorView(view, credentials, res.data);
    await startSession(res.data);
  } catch (err) {
    showAlert(describe(err));
  }
}

/**
 * The factor step; with `credentials.password` null (a hand-off from registration) it asks for the password too.
 * @param {HTMLElement} view
 * @param {{ email: string, password: string | null }} credentials
 * @param {Challenge} challenge
 */
export function factorView(view, credentials, challenge) {
  const email = challenge.channel === 'EMAIL';
  const passwordInput = credentials.password === null
    ? h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 72 })
    : null;
  const password = passwordInput && h('label', {}, 'Password ', passwordInput);
  let recovery = false;
  const input = h('input', { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', required: true, maxlength: email ? 8 : 6 });
  const label = h('label', {}, email ? 'Code from the email ' : 'Authenticator code ', input);
  const toggle = h('button', { type: 'button', class: 'link', id: 'use-recovery' }, 'Use a recovery code instead');
  toggle.addEventListener('click', () => {
    recovery = !recovery;
    /** @type {Text} */ (label.firstChild).textContent = recovery ? 'Recovery code ' : 'Authenticator code ';
    input.removeAttribute('inputmode');
    input.maxLength = recovery ? 19 : 6;
    toggle.textContent = recovery ? 'Use the authenticator instead' : 'Use a recovery code instead';
  });
  const form = h(
    'form',
    { id: 'factor', novalidate: true },
    // An EMAIL challenge has its expiry; a hand-off link without one (edited by hand) leaves the time out.
    h('p', {}, email ? `We mailed an 8-digit code to ${credentials.email}.${challenge.expiresAt ? ` It is valid until ${new Date(challenge.expiresAt).toLocaleTimeString()}.` : ''}` : 'Enter the 6-digit code of your authenticator app.'),
    password,
    label,
    email ? null : toggle,
    h('button', { type: 'submit' }, 'Continue'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearAlert();
    const code = input.value.trim();
    // An EMAIL challenge always has its id (the API leaves it null for TOTP only).
    const factor = email ? { challengeId: /** @type {string} */ (challenge.challengeId), code } : recovery ? { recoveryCode: code } : { totpCode: code };
    // Without a typed password the credentials carry it (it is null only when the field is drawn).
    const typed = /** @type {string} */ (passwordInput ? passwordInput.value : credentials.password);
    void busy(form, () => login(view, { ...credentials, password: typed, ...factor }));
  });
  view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Second factor'), form));
  (passwordInput ?? input).focus();
}
