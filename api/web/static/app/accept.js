// @ts-check
// /invitations/accept on a workspace host: the link of an invitation mail.
import { call, describe } from './api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from './dom.js';
import { factorView } from './login.js';
import { startSession } from './session.js';

/** @type {string | null} */
let invitationToken = null; // read from the invitation link, then kept only here

/** @param {HTMLElement} view */
export function acceptView(view) {
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
        // The form is drawn only with a token (see above); it is let go once the invitation is accepted.
        const body = /** @satisfies {import('./api.js').RequestBody<'acceptInvitation'>} */ ({ token: /** @type {string} */ (invitationToken), password });
        const res = /** @type {import('./api.js').Reply<'acceptInvitation'>} */ (await call('POST', '/api/v1/auth/membership-invitations/accept', { body }));
        invitationToken = null;
        if (res.status === 202) return factorView(view, { email, password }, res.data);
        await startSession(res.data);
      } catch (err) {
        showAlert(describe(err));
      }
    });
  });
  view.replaceChildren(h('section', { class: 'narrow' }, h('h1', {}, 'Join the workspace'), form));
}
