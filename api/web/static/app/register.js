// @ts-check
// /register?token=…&email=… on the central host: the link of the registration mail.
import { call, describe } from './api.js';
import { busy, clearAlert, fieldsOf, showAlert } from './dom.js';

const params = new URLSearchParams(location.search);
const token = params.get('token');
// register.html's form and its fields.
const form = /** @type {HTMLFormElement} */ (document.getElementById('register'));
/** @type {HTMLInputElement} */ (form.elements.namedItem('email')).value = params.get('email') ?? '';
// The proof stays in memory only: out of the address bar and the history.
history.replaceState(null, '', '/register');

/** @param {string} slug */
function workspaceUrl(slug) {
  const origin = /** @type {HTMLMetaElement} */ (document.querySelector('meta[name="workspace-origin"]'));
  return origin.content.replace('{slug}', slug);
}

/**
 * @param {'done' | 'second-factor'} sectionId
 * @param {'workspace-link' | 'factor-link'} linkId
 * @param {string} url
 */
function showLink(sectionId, linkId, url, text = url) {
  form.hidden = true;
  const link = /** @type {HTMLAnchorElement} */ (document.getElementById(linkId));
  link.href = url;
  link.textContent = text;
  /** @type {HTMLElement} */ (document.getElementById(sectionId)).hidden = false;
}

if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
  form.hidden = true;
  showAlert('This page needs the link from your registration mail. Request a new one if it has expired.');
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  clearAlert();
  const f = fieldsOf(form);
  if (f.password !== f.confirmPassword) return showAlert('The two passwords differ.');
  if ([...f.password].length < 15) return showAlert('The password needs at least 15 characters.');
  if (Boolean(f.companyName) !== Boolean(f.taxId)) return showAlert('A company needs both a name and a 9-digit tax id, or neither.');
  // Without a well-formed token the form is hidden (above), so it is not submitted.
  /** @type {import('./api.js').RequestBody<'register'>} */
  const body = { token: /** @type {string} */ (token), email: f.email, password: f.password, confirmPassword: f.confirmPassword };
  if (f.companyName) body.company = { name: f.companyName, taxId: f.taxId };
  void busy(form, async () => {
    try {
      const res = /** @type {import('./api.js').Reply<'register'>} */ (await call('POST', '/api/v1/auth/register', { body }));
      if (res.status === 202) {
        // The login with the factor happens on the new workspace's host; the fragment (never sent to a
        // server) carries the email and the challenge already mailed, so no second code is sent.
        const { channel, challengeId, expiresAt, workspaceSlug } = res.data;
        // An EMAIL challenge has both its id and its expiry; TOTP has neither.
        const next = new URLSearchParams({ email: f.email, channel, ...(challengeId && expiresAt ? { challengeId, expiresAt } : {}) });
        return showLink('second-factor', 'factor-link', `${workspaceUrl(workspaceSlug)}/login#${next}`, 'log in to the new workspace');
      }
      const me = /** @type {import('./api.js').Reply<'getCurrentUser'>} */ (await call('GET', '/api/v1/me', { token: res.data.accessToken }));
      // The session just issued is not needed here: the workspace host is where one logs in.
      const logout = /** @satisfies {import('./api.js').RequestBody<'logout'>} */ ({ refreshToken: res.data.refreshToken });
      await call('POST', '/api/v1/auth/logout', { token: res.data.accessToken, body: logout }).catch(() => undefined);
      showLink('done', 'workspace-link', `${workspaceUrl(me.data.company.slug)}/login`);
    } catch (err) {
      showAlert(describe(err));
    }
  });
});
