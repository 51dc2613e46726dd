// @ts-check
// #overview: the workspace and the caller's roles.
import { h } from '../dom.js';
import { me } from '../session.js';

/** @param {HTMLElement} body */
export function overview(body) {
  const who = me();
  body.append(
    h('h1', {}, who.company.name ?? 'Your workspace'),
    h('dl', {}, h('dt', {}, 'Workspace'), h('dd', {}, who.company.slug), h('dt', {}, 'Your roles'), h('dd', { id: 'roles' }, who.roles.join(', ')), h('dt', {}, 'Membership'), h('dd', {}, who.membershipId)),
  );
}
