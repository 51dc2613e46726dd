// @ts-check
// #users: the members, and an emailed invitation for whoever may invite.
import { describe } from '../api.js';
import { busy, clearAlert, fieldsOf, h, showAlert } from '../dom.js';
import { api, can } from '../session.js';
import { table } from './common.js';

/** @typedef {import('../../../../../contracts/openapi').components['schemas']['RoleCode']} RoleCode */

/** @param {HTMLElement} body */
export async function users(body) {
  body.append(h('h1', {}, 'Users and invitations'));
  if (can('createInvitation')) {
    /** @type {RoleCode[]} */
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
          // The role is one of the select's options, `roles`.
          const invitation = /** @satisfies {import('../api.js').RequestBody<'createInvitation'>} */ ({ email: f.email, roles: [/** @type {RoleCode} */ (f.role)] });
          const res = /** @type {import('../api.js').Reply<'createInvitation'>} */ (await api('POST', '/api/v1/membership-invitations?delivery=EMAIL', invitation));
          showAlert(`Invitation mailed to ${f.email}; valid until ${new Date(res.data.expiresAt).toLocaleString()}.`, 'info');
        } catch (err) {
          showAlert(describe(err));
        }
      });
    });
    body.append(form);
  }
  const { data } = /** @type {import('../api.js').Reply<'listUsers'>} */ (await api('GET', '/api/v1/users?size=100'));
  body.append(table(['Name', 'Email', 'Roles', 'Status', 'Last login'], data.items.map((u) =>
    h('tr', {}, h('td', {}, u.displayName), h('td', {}, u.email), h('td', {}, u.roles.join(', ')), h('td', {}, u.status), h('td', {}, u.lastLogin ? new Date(u.lastLogin).toLocaleString() : '')))));
}
