// The catalogue of audit actions: code, category and label kept in one place.

export const AUDIT_ACTIONS = {
  'workspace.registered': { category: 'WORKSPACE', label: 'Workspace registered', kind: 'CREATE' },
  'auth.login.succeeded': { category: 'AUTHENTICATION', label: 'Logged in', kind: 'OTHER' },
  'auth.session.revoked': { category: 'AUTHENTICATION', label: 'Session revoked', kind: 'OTHER' },
  'auth.logout': { category: 'AUTHENTICATION', label: 'Logged out', kind: 'OTHER' },
  'auth.refresh-token.reused': {
    category: 'AUTHENTICATION',
    label: 'Refresh token reused; session revoked',
    kind: 'OTHER',
  },
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
