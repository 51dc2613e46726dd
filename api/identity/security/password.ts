import { updatePasswordHash } from '../../../db/repositories/identity/identities';
import { revokeIdentitySessions } from '../../../db/repositories/identity/sessions';
import type { PasswordHasher } from '../../../core/identity/passwords';
import type { Principal, RequestContext } from '../../http/context';
import type { Schemas } from '../../http/operation-handler';
import { assertNewPassword } from '../password-rules';
import type { SecurityGuards } from './guards';

const CHANGE_PASSWORD_MIN_CHARACTERS = 12;

/** changePassword: the caller's new password; every other session of theirs ends. */
export function createChangePassword(deps: { hasher: PasswordHasher; guards: SecurityGuards }) {
  const { guards } = deps;

  async function changePassword(principal: Principal, body: Schemas['PasswordChange'], ctx: RequestContext): Promise<void> {
    assertNewPassword(body.newPassword, body.confirmPassword, CHANGE_PASSWORD_MIN_CHARACTERS, 'newPassword');
    const identity = await guards.reauthenticate(principal, body.currentPassword);
    await guards.assertSteppedUp(principal, identity);
    const passwordHash = await deps.hasher.hash(body.newPassword);
    await guards.audited(
      principal,
      ctx,
      'auth.password.changed',
      async (tx) => {
        await updatePasswordHash(tx, identity.id, passwordHash);
        // Every other session of this person ends, in every workspace: whoever knew the old password is out.
        return revokeIdentitySessions(tx, identity.id, { keepSessionId: principal.sessionId, reason: 'PASSWORD_CHANGED' });
      },
      (ended) => `${ended.length} other session(s) ended`,
    );
  }

  return { changePassword };
}
