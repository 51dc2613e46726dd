import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { AppError } from '../../core/shared/problems';
import type { Config } from '../../runtime/config';
import type { FactorSecrets } from '../../core/identity/factor-secrets';
import type { PasswordHasher } from '../../core/identity/passwords';
import { matchTotpStep } from '../../core/identity/totp';
import { canonicalRecoveryCode, recoveryCodeMatches } from '../../core/identity/recovery-codes';
import { releaseFactorAttempt, reserveFactorAttempt, type AttemptKind } from '../../db/repositories/identity/factor-attempts';
import { liveRecoveryCodes, spendRecoveryCode } from '../../db/repositories/identity/recovery-codes';
import { spendTotpStep } from '../../db/repositories/identity/totp';
import { emailChallengeWorkflowId } from '../../contracts/workflow-ids';
import {
  EMAIL_CHALLENGE_WORKFLOW,
  verifyCodeUpdate,
  type EmailChallengePurpose,
  type EmailChallengeWorkflow,
  type VerifyCodeResult,
} from '../../contracts/identity';
import type { ProblemType } from '../../core/shared/problems';
import type { WorkflowClient } from '../workflow-client';
import type { RequestContext } from '../http/context';
import type { RequestLimits } from '../http/request-limits';
import type { Schemas } from '../http/operation-handler';

/** What a request answers when it needs a second factor next (202). */
export type EmailChallengeResponse = Schemas['EmailChallengeResponse'];

export interface SecondFactorDeps {
  db: Sequelize;
  hasher: PasswordHasher;
  factorSecrets: FactorSecrets;
  workflows: WorkflowClient;
  settings: Config['secondFactors'];
  limits: RequestLimits;
}

export type SecondFactorService = ReturnType<typeof createSecondFactorService>;

/** The identity as read at the start of the request (an IdentityRow satisfies this). */
export interface FactorHolder {
  id: string;
  totpSecretEncrypted: string | null;
  emailFactorEnabled: boolean;
}

/** The second-factor fields of a request (login and step-up): one of the email pair, totpCode, recoveryCode. */
export interface FactorProof {
  challengeId?: string;
  code?: string;
  totpCode?: string;
  recoveryCode?: string;
}

export type FactorKind = 'EMAIL_CODE' | 'TOTP' | 'RECOVERY_CODE';

/** The factor a request carries, or null for none; mixed or incomplete factors are refused as `problem`. */
export function factorOf(input: FactorProof, problem: ProblemType): FactorKind | null {
  const emailFactor = input.challengeId !== undefined || input.code !== undefined;
  const factors = [emailFactor, input.totpCode !== undefined, input.recoveryCode !== undefined].filter(Boolean).length;
  if (factors > 1) throw new AppError(problem, 'Send exactly one of: challengeId with code, totpCode, recoveryCode');
  if (emailFactor && (input.challengeId === undefined || input.code === undefined)) {
    throw new AppError(problem, 'challengeId and code must be sent together');
  }
  if (emailFactor) return 'EMAIL_CODE';
  if (input.totpCode !== undefined) return 'TOTP';
  if (input.recoveryCode !== undefined) return 'RECOVERY_CODE';
  return null;
}

/** The identity's second factor: an authenticator wins over email codes. */
export function channelOf(identity: FactorHolder): 'TOTP' | 'EMAIL' | null {
  return identity.totpSecretEncrypted ? 'TOTP' : identity.emailFactorEnabled ? 'EMAIL' : null;
}

const WRONG_CODE_DETAIL: Record<Exclude<VerifyCodeResult, 'VERIFIED'>, string> = {
  WRONG_CODE: 'The code is wrong',
  GUESSES_EXHAUSTED: 'The code is wrong and the challenge has no guesses left; request a new code',
  EXPIRED: 'The code has expired; request a new one',
  ALREADY_USED: 'The code was already used; request a new one',
};

/** The answers that mean "this guess was wrong": they use up an attempt. */
const REJECTED_GUESS: ReadonlySet<ProblemType> = new Set<ProblemType>([
  'invalid-second-factor',
  'second-factor-code-incorrect',
  'current-password-incorrect',
  'invalid-credentials',
]);

/** Everything that checks a second factor or a current password, with the shared attempt limit. */
export function createSecondFactorService(deps: SecondFactorDeps) {
  const { db, settings } = deps;
  const policy = { limit: settings.attemptsPerWindow, windowSeconds: settings.attemptWindowSeconds };

  const tooManyAttempts = (retryAfter: number) =>
    new AppError(
      'too-many-attempts',
      `Too many second-factor attempts; try again in ${retryAfter} seconds`,
      { retryAfter },
      { 'Retry-After': String(retryAfter) },
    );

  /**
   * Runs one factor or password check inside the identity's attempt window (five per five minutes, shared
   * by login, registration and the settings operations). The attempt is reserved under the identity's lock
   * before the check runs, so concurrent guesses cannot overrun the limit; a check that passes gives its
   * reservation back, so only failed guesses count (NIST SP 800-63B §5.2.2).
   */
  async function checkFactor(identityId: string, kind: AttemptKind, check: () => Promise<void>): Promise<void> {
    const reservation = await reserveFactorAttempt(db, identityId, { kind, policy });
    if ('retryAfter' in reservation) throw tooManyAttempts(reservation.retryAfter);
    try {
      await check();
    } catch (err) {
      // A rejected guess keeps its reservation; anything else (e.g. Temporal unreachable) judged nothing.
      if (!(err instanceof AppError && REJECTED_GUESS.has(err.type))) await releaseFactorAttempt(db, reservation.attemptId);
      throw err;
    }
    await releaseFactorAttempt(db, reservation.attemptId);
  }

  /**
   * Checks the factor a request carries against the identity's own factor, inside the attempt window.
   * Email codes must come from a challenge started for the same identity, workspace and purpose.
   */
  async function verifyFactor(
    identity: FactorHolder,
    challenge: { tenantId: string | null; purpose: EmailChallengePurpose },
    input: FactorProof,
    kind: FactorKind,
    rejectAs: ProblemType,
  ): Promise<void> {
    await checkFactor(identity.id, kind, async () => {
      // A factor the account does not have is a wrong factor (the operation's own rejection, counted as a
      // failed guess), never a state conflict: login and reset declare no 409.
      if (kind === 'EMAIL_CODE') {
        if (channelOf(identity) !== 'EMAIL') throw new AppError(rejectAs, 'Email codes are not this account\'s second factor');
        await verifyEmailCode({ identityId: identity.id, ...challenge }, input.challengeId!, input.code!, rejectAs);
      } else if (!identity.totpSecretEncrypted) {
        throw new AppError(rejectAs, 'An authenticator is not this account\'s second factor: use the code of its email challenge');
      } else if (kind === 'TOTP') {
        await verifyTotpCode(identity, input.totpCode!, rejectAs);
      } else {
        await verifyRecoveryCode(identity, input.recoveryCode!, rejectAs);
      }
    });
  }

  /** A wrong current password counts against the same window, so a stolen access token cannot guess it. */
  async function verifyCurrentPassword(identity: { id: string; passwordHash: string }, password: string): Promise<void> {
    await checkFactor(identity.id, 'CURRENT_PASSWORD', async () => {
      if (!(await deps.hasher.verify(password, identity.passwordHash))) throw new AppError('current-password-incorrect');
    });
  }

  async function startEmailChallenge(
    who: { identityId: string; tenantId: string | null; purpose: EmailChallengePurpose },
    ctx: RequestContext,
  ): Promise<{ challengeId: string; expiresAt: string }> {
    // Each challenge mails a code: limited per client IP and per identity, whatever started it.
    await deps.limits.consume('emailChallenge', { ip: ctx.ipAddress, target: who.identityId });
    const challengeId = randomUUID();
    const expiresAt = new Date(Date.now() + settings.emailCodeTtlSeconds * 1000).toISOString();
    const startId = await db.transaction((tx) =>
      deps.workflows.enqueue<EmailChallengeWorkflow>(tx, EMAIL_CHALLENGE_WORKFLOW, {
        workflowId: emailChallengeWorkflowId(challengeId),
        args: [{ challengeId, ...who, expiresAt, maxGuesses: 5, correlationId: ctx.correlationId }],
        tenantId: who.tenantId,
        idReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
    // Unreachable Temporal does not fail the request: the relay starts the challenge (and mails the code) later.
    await deps.workflows.dispatch({ id: startId });
    return { challengeId, expiresAt };
  }

  /**
   * The step that asks for the identity's second factor: null without one, else the 202 body (TOTP: the
   * client sends a code; EMAIL: a challenge for `purpose` is started and its code mailed). Login's first
   * step, step-up, and a registration or accepted invitation of an identity with a factor all answer it.
   */
  async function factorChallenge(
    identity: FactorHolder,
    who: { tenantId: string | null; purpose: EmailChallengePurpose },
    ctx: RequestContext,
  ): Promise<EmailChallengeResponse | null> {
    const channel = channelOf(identity);
    if (channel === 'TOTP') return { channel, challengeId: null, expiresAt: null };
    if (channel === 'EMAIL') return { channel, ...(await startEmailChallenge({ identityId: identity.id, ...who }, ctx)) };
    return null;
  }

  /** Asks the challenge workflow; only a keyed MAC of the typed code leaves this process. */
  async function verifyEmailCode(
    who: { identityId: string; tenantId: string | null; purpose: EmailChallengePurpose },
    challengeId: string,
    code: string,
    rejectAs: ProblemType = 'invalid-second-factor',
  ): Promise<void> {
    const result = await deps.workflows.update(emailChallengeWorkflowId(challengeId), verifyCodeUpdate, {
      ...who,
      codeMac: deps.factorSecrets.emailCodeMac(challengeId, code),
    });
    if (result === 'VERIFIED') return;
    throw new AppError(rejectAs, result === null ? 'No open challenge has this id; request a new code' : WRONG_CODE_DETAIL[result]);
  }

  /** A code within ±1 step, and later than every step this identity used before: single use. */
  async function verifyTotpCode(identity: FactorHolder, code: string, rejectAs: ProblemType = 'invalid-second-factor'): Promise<void> {
    if (!identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'No authenticator is enabled');
    const secret = deps.factorSecrets.decrypt('totp-secret', identity.id, identity.totpSecretEncrypted);
    const step = matchTotpStep(secret, code, Date.now());
    if (step === null) throw new AppError(rejectAs, 'The authenticator code is wrong or out of time');
    if (!(await spendTotpStep(db, identity.id, step))) {
      throw new AppError(rejectAs, 'This authenticator code was already used; wait for the next one');
    }
  }

  /** Compares against every unused code (salted hashes cannot be looked up) and spends the match once. */
  async function verifyRecoveryCode(identity: FactorHolder, input: string, rejectAs: ProblemType = 'invalid-second-factor'): Promise<void> {
    if (!identity.totpSecretEncrypted) throw new AppError('second-factor-state', 'No authenticator is enabled');
    const canonical = canonicalRecoveryCode(input);
    const candidates = canonical ? await liveRecoveryCodes(db, identity.id) : [];
    const matches = await Promise.all(candidates.map((c) => recoveryCodeMatches(canonical!, c.codeHash)));
    const match = candidates.find((_, i) => matches[i]);
    if (!match || !(await spendRecoveryCode(db, identity.id, match.id))) {
      throw new AppError(rejectAs, 'The recovery code is wrong or already used');
    }
  }

  return { checkFactor, verifyFactor, factorChallenge, verifyCurrentPassword, startEmailChallenge, verifyEmailCode, verifyTotpCode, verifyRecoveryCode };
}
