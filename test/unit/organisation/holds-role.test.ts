import { holdsRole } from '../../../core/organisation/roles';

describe('holdsRole: who may give a role, or change and remove its holders', () => {
  const employee = ['listDevices', 'registerDevice'];
  const mine = new Set(['listUsers', 'listDevices', 'registerDevice']);

  test('its members, and an ADMIN, hold it whatever its permissions', () => {
    expect(holdsRole(['MANAGER'], mine, 'MANAGER', ['anything'])).toBe(true);
    expect(holdsRole(['ADMIN'], new Set(), 'ACCOUNTANT', ['postJournalEntry'])).toBe(true);
    expect(holdsRole(['ADMIN'], new Set(), 'ADMIN', undefined)).toBe(true);
  });

  test('anyone else holds it when every permission it has now is theirs too', () => {
    expect(holdsRole(['MANAGER'], mine, 'EMPLOYEE', employee)).toBe(true);
    expect(holdsRole(['MANAGER'], mine, 'EMPLOYEE', [...employee, 'postJournalEntry'])).toBe(false);
    expect(holdsRole(['MANAGER'], mine, 'VIEWER', [])).toBe(true);
  });

  test('ADMIN is held by ADMINs only, and an unknown role by nobody else', () => {
    expect(holdsRole(['MANAGER'], new Set(['listUsers']), 'ADMIN', ['listUsers'])).toBe(false);
    expect(holdsRole(['MANAGER'], mine, 'EMPLOYEE', undefined)).toBe(false);
  });
});
