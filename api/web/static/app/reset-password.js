// /reset-password?token=…&email=… on the central host: the link of the password reset mail.
import { call, describe } from './api.js';
import { busy, clearAlert, fieldsOf, showAlert } from './dom.js';

const params = new URLSearchParams(location.search);
const token = params.get('token');
const form = document.getElementById('reset');
form.elements.email.value = params.get('email') ?? '';
// The link's token stays in memory only: out of the address bar and the history.
history.replaceState(null, '', '/reset-password');

/** The second factor the service asked for: null until it answers 202. */
let factor = null;

function askForFactor(challenge) {
  factor = challenge;
  const totp = challenge.channel === 'TOTP';
  document.getElementById('factor-legend').textContent = totp ? 'Authenticator code' : 'Emailed code';
  document.getElementById('factor-hint').textContent = totp
    ? 'Your account has an authenticator: type its current six-digit code, or one of your recovery codes.'
    : 'Your account has email codes: type the eight-digit code we just mailed you.';
  document.getElementById('recovery-label').hidden = !totp;
  document.getElementById('factor').hidden = false;
  form.elements.code.focus();
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
  const body = { token, email: f.email, newPassword: f.newPassword, confirmPassword: f.confirmPassword };
  if (factor?.channel === 'TOTP') {
    if (f.recoveryCode) body.recoveryCode = f.recoveryCode;
    else body.totpCode = f.code;
  } else if (factor?.channel === 'EMAIL') {
    Object.assign(body, { challengeId: factor.challengeId, code: f.code });
  }
  void busy(form, async () => {
    try {
      const res = await call('POST', '/api/v1/auth/password-reset', { body });
      if (res.status === 202) return askForFactor(res.data);
      form.hidden = true;
      document.getElementById('done').hidden = false;
    } catch (err) {
      showAlert(describe(err));
    }
  });
});
