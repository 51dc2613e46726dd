import { memberOperation, publicOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { createLogin } from './login';
import type { createMe } from './me';
import type { createPasswordReset } from './password-reset';
import type { createRegistration } from './registration';
import type { SecurityUseCases } from './security/use-cases';
import type { SessionService } from './sessions';

export type IdentityOperation =
  | 'requestMagicLink'
  | 'register'
  | 'requestPasswordReset'
  | 'resetPassword'
  | 'login'
  | 'refreshSession'
  | 'logout'
  | 'getCurrentUser'
  | 'getMyAccess'
  | 'listMySessions'
  | 'revokeMySession'
  | 'changePassword'
  | 'getSecurityStatus'
  | 'stepUpSession'
  | 'challengeEmailFactorSetting'
  | 'confirmEmailFactorSetting'
  | 'setupTotp'
  | 'confirmTotp'
  | 'disableTotp'
  | 'regenerateRecoveryCodes';

export interface IdentityUseCases {
  registration: ReturnType<typeof createRegistration>;
  passwordReset: ReturnType<typeof createPasswordReset>;
  login: ReturnType<typeof createLogin>;
  sessions: SessionService;
  me: ReturnType<typeof createMe>;
  security: SecurityUseCases;
}

/** Registration, login, sessions, and the caller's own password and second factors. */
export function identityHandlers({ registration, passwordReset, login, sessions, me, security }: IdentityUseCases): HandlersOf<IdentityOperation> {
  return {
    requestMagicLink: publicOperation(async ({ body, ctx }) => {
      await registration.requestMagicLink(body.email, ctx);
      return { status: 202, body: { message: 'If the address can receive mail, a registration link is on its way.' } };
    }),

    register: publicOperation(async ({ body, ctx }) => {
      const outcome = await registration.register(body, ctx);
      return outcome.kind === 'challenge'
        ? { status: 202, body: { ...outcome.challenge, workspaceSlug: outcome.workspaceSlug } }
        : { status: 201, body: outcome.tokens };
    }),

    requestPasswordReset: publicOperation(async ({ body, ctx }) => {
      await passwordReset.requestPasswordReset(body.email, ctx);
      return { status: 202, body: { message: 'If the address belongs to an account, a link to choose a new password is on its way.' } };
    }),

    resetPassword: publicOperation(async ({ body, ctx }) => {
      const outcome = await passwordReset.resetPassword(body, ctx);
      return outcome.kind === 'challenge' ? { status: 202, body: outcome.challenge } : { status: 204 };
    }),

    login: publicOperation(async ({ body, ctx }) => {
      const outcome = await login.login(body, ctx);
      return outcome.kind === 'challenge' ? { status: 202, body: outcome.challenge } : { status: 200, body: outcome.tokens };
    }),

    refreshSession: publicOperation(async ({ body, ctx }) => ({ status: 200, body: await sessions.refreshSession(body.refreshToken, ctx) })),

    logout: publicOperation(async ({ body, ctx }) => {
      await sessions.logout(body.refreshToken, ctx);
      return { status: 204 };
    }),

    getCurrentUser: memberOperation(async ({ principal }) => ({ status: 200, body: await me.getCurrentUser(principal) })),

    getMyAccess: memberOperation(async ({ principal }) => ({ status: 200, body: await me.getMyAccess(principal) })),

    listMySessions: memberOperation(async ({ principal, query }) => {
      const { page, size } = pageQuery(query);
      return { status: 200, body: await me.listMySessions(principal, page, size) };
    }),

    revokeMySession: memberOperation(async ({ principal, params, ctx }) => {
      await me.revokeMySession(principal, params.sessionId, ctx);
      return { status: 204 };
    }),

    changePassword: memberOperation(async ({ principal, body, ctx }) => {
      await security.password.changePassword(principal, body, ctx);
      return { status: 204 };
    }),

    getSecurityStatus: memberOperation(async ({ principal }) => ({ status: 200, body: await security.status.getSecurityStatus(principal) })),

    stepUpSession: memberOperation(async ({ principal, body, ctx }) => {
      const outcome = await security.stepUp.stepUpSession(principal, body, ctx);
      return outcome.kind === 'challenge'
        ? { status: 202, body: outcome.challenge }
        : { status: 200, body: { verifiedUntil: outcome.verifiedUntil.toISOString() } };
    }),

    challengeEmailFactorSetting: memberOperation(async ({ principal, body, ctx }) => ({
      status: 202,
      body: await security.emailFactor.challengeEmailFactorSetting(principal, body, ctx),
    })),

    confirmEmailFactorSetting: memberOperation(async ({ principal, body, ctx }) => ({
      status: 200,
      body: await security.emailFactor.confirmEmailFactorSetting(principal, body, ctx),
    })),

    setupTotp: memberOperation(async ({ principal, body }) => ({ status: 201, body: await security.totp.setupTotp(principal, body) })),

    confirmTotp: memberOperation(async ({ principal, body, ctx }) => ({ status: 200, body: await security.totp.confirmTotp(principal, body, ctx) })),

    disableTotp: memberOperation(async ({ principal, body, ctx }) => ({ status: 200, body: await security.totp.disableTotp(principal, body, ctx) })),

    regenerateRecoveryCodes: memberOperation(async ({ principal, body, ctx }) => ({
      status: 200,
      body: await security.recoveryCodes.regenerateRecoveryCodes(principal, body, ctx),
    })),
  };
}
