// The catalogue of audit actions: code, category and label kept in one place. `kind` decides the bucket of
// GET /audit-events/statistics (CREATE, UPDATE, DELETE or OTHER).

export type AuditActionKind = 'CREATE' | 'UPDATE' | 'DELETE' | 'OTHER';

export const AUDIT_ACTIONS = {
  'workspace.registered': { category: 'WORKSPACE', label: 'Workspace registered', kind: 'CREATE' },
  'workspace.onboarding.completed': { category: 'WORKSPACE', label: 'Company details saved', kind: 'UPDATE' },
  'workspace.company.archived': { category: 'WORKSPACE', label: 'Company archived', kind: 'UPDATE' },
  'auth.login.succeeded': { category: 'AUTHENTICATION', label: 'Logged in', kind: 'OTHER' },
  'auth.login.failed': { category: 'AUTHENTICATION', label: 'Login failed', kind: 'OTHER' },
  'auth.password.changed': { category: 'SECURITY', label: 'Password changed', kind: 'UPDATE' },
  'auth.password.reset': { category: 'SECURITY', label: 'Password reset by an emailed link', kind: 'UPDATE' },
  'auth.email-factor.enabled': { category: 'SECURITY', label: 'Email sign-in codes turned on', kind: 'UPDATE' },
  'auth.email-factor.disabled': { category: 'SECURITY', label: 'Email sign-in codes turned off', kind: 'UPDATE' },
  'auth.totp.enabled': { category: 'SECURITY', label: 'Authenticator app turned on', kind: 'UPDATE' },
  'auth.totp.disabled': { category: 'SECURITY', label: 'Authenticator app turned off', kind: 'UPDATE' },
  'auth.step-up.succeeded': { category: 'SECURITY', label: 'Second factor confirmed for a change', kind: 'OTHER' },
  'auth.recovery-codes.regenerated': { category: 'SECURITY', label: 'Recovery codes regenerated', kind: 'UPDATE' },
  'auth.session.revoked': { category: 'AUTHENTICATION', label: 'Session revoked', kind: 'OTHER' },
  'auth.logout': { category: 'AUTHENTICATION', label: 'Logged out', kind: 'OTHER' },
  'auth.refresh-token.reused': {
    category: 'AUTHENTICATION',
    label: 'Refresh token reused; session revoked',
    kind: 'OTHER',
  },
  'users.member.updated': { category: 'USERS', label: 'Member changed', kind: 'UPDATE' },
  'users.member.suspended': { category: 'USERS', label: 'Member suspended', kind: 'UPDATE' },
  'users.member.reactivated': { category: 'USERS', label: 'Member reactivated', kind: 'UPDATE' },
  'users.invitation.created': { category: 'USERS', label: 'Invitation sent', kind: 'CREATE' },
  'users.invitation.revoked': { category: 'USERS', label: 'Invitation revoked', kind: 'DELETE' },
  'users.invitation.accepted': { category: 'USERS', label: 'Invitation accepted', kind: 'CREATE' },
  'users.member.removed': { category: 'USERS', label: 'Member removed', kind: 'DELETE' },
  'roles.permissions.updated': { category: 'ROLES', label: 'Role permissions changed', kind: 'UPDATE' },
  'roles.permissions.reset': { category: 'ROLES', label: 'Role permissions reset to the defaults', kind: 'UPDATE' },
  'accounting.settings.saved': { category: 'ACCOUNTING', label: 'Accounting settings saved', kind: 'UPDATE' },
  'accounting.account.created': { category: 'ACCOUNTING', label: 'Company account created', kind: 'CREATE' },
  'accounting.account.configured': { category: 'ACCOUNTING', label: 'Company account configured', kind: 'UPDATE' },
  'accounting.subaccount.created': { category: 'ACCOUNTING', label: 'Subaccount created', kind: 'CREATE' },
  'accounting.subaccount.configured': { category: 'ACCOUNTING', label: 'Subaccount configured', kind: 'UPDATE' },
  'ledger.entry.posted': { category: 'LEDGER', label: 'Journal entry posted', kind: 'CREATE' },
  'ledger.entry.reversed': { category: 'LEDGER', label: 'Journal entry reversed', kind: 'CREATE' },
  'ledger.period.close-requested': { category: 'LEDGER', label: 'Period close requested', kind: 'OTHER' },
  'ledger.period.closed': { category: 'LEDGER', label: 'Period closed', kind: 'OTHER' },
  'ledger.period.close-failed': { category: 'LEDGER', label: 'Period close failed', kind: 'OTHER' },
  'notifications.device.registered': { category: 'NOTIFICATIONS', label: 'Device registered for push', kind: 'CREATE' },
  'notifications.device.removed': { category: 'NOTIFICATIONS', label: 'Device removed', kind: 'DELETE' },
  'notifications.message.sent': { category: 'NOTIFICATIONS', label: 'Notification sent', kind: 'CREATE' },
  'rates.refresh.requested': { category: 'RATES', label: 'Exchange-rate refresh requested', kind: 'OTHER' },
} as const satisfies Record<string, { category: string; label: string; kind: AuditActionKind }>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
