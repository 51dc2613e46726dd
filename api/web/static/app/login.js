// /login on a workspace host: email and password, then the second factor the API asks for.
import { call, describe } from './api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from './dom.js';
import { startSession } from './session.js';

/** The login form; a hand-off from the registration page (email and challenge in the fragment) goes to the factor step. */
export function loginView(view) {
  const handoff = new URLSearchParams(location.hash.slice(1));
  if (handoff.get('email') && ['EMAIL', 'TOTP'].includes(handoff.get('channel'))) {
    history.replaceState(null, '', '/login');
    const challenge = { channel: handoff.get('channel'), challengeId: handoff.get('challengeId'), expiresAt: handoff.get('expiresAt') };
    return factorView(view, { email: handoff.get('email'), password: null }, challenge);
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
async function login(view, credentials) {
  try {
    const res = await call('POST', '/api/v1/auth/login', { body: credentials });
    if (res.status === 202) return factorView(view, credentials, res.data);
    await startSession(res.data);
  } catch (err) {
    showAlert(describe(err));
  }
}

/** The factor step; with `credentials.password` null (a hand-off from registration) it asks for the password too. */
export function factorView(view, credentials, challenge) {
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
    void busy(form, () => login(view, { ...credentials, ...typed, ...factor }));
  });
  view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Second factor'), form));
  (password ? form.elements.password : input).focus();
}
