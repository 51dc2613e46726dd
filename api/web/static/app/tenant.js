// @ts-check
// The pages of a workspace host: /login, /invitations/accept and the console (/console). One page, so the
// session (access and refresh token) lives in this page's memory only: never in storage, gone on reload.
// This module routes between them; each page and console section is a module of its own.
import { acceptView } from './accept.js';
import { consoleView, stopPolling } from './console/index.js';
import { clearAlert, showAlert } from './dom.js';
import { loginView } from './login.js';
import { hasSession, logout, me, onSessionChange } from './session.js';

// tenant.html's parts.
/** @param {string} id */
const part = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const view = part('view');

/** @param {string} url */
function navigate(url) {
  history.pushState(null, '', url);
  render();
}

function render() {
  stopPolling();
  clearAlert();
  if (location.pathname === '/invitations/accept' && !hasSession()) return acceptView(view);
  if (!hasSession()) {
    if (location.pathname !== '/login') history.replaceState(null, '', '/login');
    return loginView(view);
  }
  if (location.pathname !== '/console') history.replaceState(null, '', '/console#overview');
  return consoleView(view, (location.hash || '#overview').slice(1));
}

onSessionChange(({ ended, message }) => {
  const who = part('who');
  part('logout').hidden = ended;
  if (ended) {
    who.textContent = '';
    stopPolling();
    navigate('/login');
    if (message) showAlert(message, 'info');
    return;
  }
  who.textContent = `${me().company.name ?? me().company.slug} · ${me().roles.join(', ')}`;
  navigate('/console#overview');
});

part('logout').addEventListener('click', () => void logout());
window.addEventListener('popstate', () => render());
window.addEventListener('hashchange', () => render());

render();
