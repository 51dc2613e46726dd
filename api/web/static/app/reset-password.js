// @ts-check
// /reset-password?token=…&email=… on the central host: the link of the password reset mail.
import { call, describe } from './api.js';
import { busy, clearAlert, fieldsOf, showAlert } from './dom.js';

const params = new URLSearchParams(location.search);
const token = params.get('token');
// reset-password.html's form, its fields and the parts shown as the reset goes on.
const form = /** @type {HTMLFormElement} */ (document.getElementById('reset'));
/** @param {string} name */
const control = (name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
/** @param {string} id */
const part = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
control('email').value = params.get('email') ?? '';
// The link's token stays in memory only: out of the address bar and the history.
history.replaceState(null, '', '/reset-password');

/** @typedef {import('../../../../contracts/openapi').components['schemas']['EmailChallengeResponse']} Challenge */

/**
 * The second factor the service asked for: null until it answers 202.
 * @type {Challenge | null}
 */
let factor = null;

/** @param {Challenge} challenge */
function askForFactor(challenge) {
  factor = challenge;
  const totp = challenge.channel === 'TOTP';
  part('factor-legend').textContent = totp ? 'Authenticator code' : 'Emailed code';
  part('factor-hint').textContent = totp
    ? 'Your account has an authenticator: type its current six-digit code, or one of your recovery codes.'
    : 'Your account has email codes: type the eight-digit code we just mailed you.';
  part('recovery-label').hidden = !totp;
  part('factor').hidden = false;
  control('code').focus();
}

if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
  form.hidden = true;
  showAlert('This page needs the link from your password reset mail. Request a new one if it has expired.');
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  clearAlert();
  const f = fieldsOf(form);
  if (f.newPassword !== f.confirmPassword) return showAlert('The two passwords differ.');
  if ([...f.newPassword].length < 12) return showAlert('The password needs at least 12 characters.');
  // Without a well-formed token the form is hidden (above), so it is not submitted.
  /** @type {import('./api.js').RequestBody<'resetPassword'>} */
  const body = { token: /** @type {string} */ (token), email: f.email, newPassword: f.newPassword, confirmPassword: f.confirmPassword };
  if (factor?.channel === 'TOTP') {
    if (f.recoveryCode) body.recoveryCode = f.recoveryCode;
    else body.totpCode = f.code;
  } else if (factor?.channel === 'EMAIL') {
    // An EMAIL challenge always has its id (the API leaves it null for TOTP only).
    Object.assign(body, /** @satisfies {Partial<typeof body>} */ ({ challengeId: /** @type {string} */ (factor.challengeId), code: f.code }));
  }
  void busy(form, async () => {
    try {
      const res = /** @type {import('./api.js').Reply<'resetPassword'>} */ (await call('POST', '/api/v1/auth/password-reset', { body }));
      if (res.status === 202) return askForFactor(res.data);
      form.hidden = true;
      part('done').hidden = false;
    } catch (err) {
      showAlert(describe(err));
    }
  });
});
