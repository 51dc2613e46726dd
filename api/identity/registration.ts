import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { findIdentityByEmail } from '../../db/repositories/identity/identities';
import { findMagicLinkByToken } from '../../db/repositories/identity/magic-links';
import { insertRegistrationAttempt, scrubRegistrationAttempt } from '../../db/repositories/identity/registration-attempts';
import { normaliseEmail } from '../../core/identity/email';
import { sha256 } from '../../core/identity/secrets';
import { AppError } from '../../core/shared/problems';
import type { PasswordHasher } from '../../core/identity/passwords';
import {
  REGISTER_WORKFLOW,
  REQUEST_MAGIC_LINK_WORKFLOW,
  type RegisterWorkflow,
  type RequestMagicLinkWorkflow,
} from '../../contracts/identity';
import { registerWorkflowId, requestMagicLinkWorkflowId } from '../../contracts/workflow-ids';
import type { WorkflowClient } from '../workflow-client';
import type { CredentialGuard, RequestLimits } from '../http/request-limits';
import type { RequestContext } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { assertNewPassword } from './password-rules';
import type { TokenPair } from './sessions';
import type { EmailChallengeResponse, SecondFactorService } from './second-factors';
import type { SignIn } from './sign-in';

const REGISTRATION_PASSWORD_MIN_CHARACTERS = 15;

export interface RegistrationDeps {
  db: Sequelize;
  workflows: WorkflowClient;
  hasher: PasswordHasher;
  factors: SecondFactorService;
  signIn: SignIn;
  limits: RequestLimits;
  guard: CredentialGuard;
}

/** A session in the new workspace, or the challenge of the existing identity's second factor (with the workspace's slug, whose host the login goes to). */
export type RegisterOutcome = { kind: 'session'; tokens: TokenPair } | { kind: 'challenge'; challenge: EmailChallengeResponse; workspaceSlug: string };

/** Registration: a magic link, then a workspace (workflows magic-link-<magicLinkId> and register-<magicLinkId>). */
export function createRegistration(deps: RegistrationDeps) {
  /** Starts requestMagicLinkWorkflow and returns at once: the answer never depends on the email. */
  async function requestMagicLink(email: string, ctx: RequestContext): Promise<void> {
    await deps.limits.consume('magicLink', { ip: ctx.ipAddress, target: normaliseEmail(email) });
    const magicLinkId = randomUUID();
    const startId = await deps.db.transaction((tx) =>
      deps.workflows.enqueue<RequestMagicLinkWorkflow>(tx, REQUEST_MAGIC_LINK_WORKFLOW, {
        workflowId: requestMagicLinkWorkflowId(magicLinkId),
        args: [{ magicLinkId, email: normaliseEmail(email), correlationId: ctx.correlationId }],
        tenantId: null,
        idReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
    // The answer never depends on the email, nor on Temporal: what cannot start now, the relay starts later.
    await deps.workflows.dispatch({ id: startId });
  }

  async function register(input: Schemas['RegisterRequest'], ctx: RequestContext): Promise<RegisterOutcome> {
    const email = normaliseEmail(input.email);
    await deps.limits.consume('register', { ip: ctx.ipAddress, target: email });
    const who = { email, ip: ctx.ipAddress };
    const attempt = await deps.guard.check(who);
    assertNewPassword(input.password, input.confirmPassword, REGISTRATION_PASSWORD_MIN_CHARACTERS);
    const magicLink = await findMagicLinkByToken(deps.db, { tokenHash: sha256(input.token) });
    const usable =
      magicLink &&
      magicLink.purpose === 'REGISTRATION' &&
      magicLink.email === email &&
      !magicLink.consumedAt &&
      !magicLink.supersededAt &&
      magicLink.expiresAt.getTime() > Date.now();
    if (!magicLink || !usable) {
      // Guessing magic links is bounded per address; the owner's own link from elsewhere still works.
      await attempt.fail();
      throw new AppError('registration-proof-invalid');
    }

    const identity = await findIdentityByEmail(deps.db, email);
    let passwordHash: string | null = null;
    if (identity) {
      // Register never replaces an existing identity's password; it must be the current one, and each
      // wrong guess uses up one of the identity's attempts (a magic link is no licence to guess).
      await deps.factors.checkFactor(identity.id, 'CURRENT_PASSWORD', async () => {
        if (!(await deps.hasher.verify(input.password, identity.passwordHash, ctx.ipAddress))) throw new AppError('invalid-credentials');
      });
    } else {
      passwordHash = await deps.hasher.hash(input.password, ctx.ipAddress);
    }
    const attemptId = randomUUID();
    const workflowId = registerWorkflowId(magicLink.id);
    const startId = await deps.db.transaction(async (tx) => {
      await insertRegistrationAttempt(tx, {
        id: attemptId,
        magicLinkId: magicLink.id,
        existingIdentityId: identity?.id ?? null,
        passwordHash,
        companyName: input.company?.name.trim() ?? null,
        companyTaxId: input.company?.taxId ?? null,
        correlationId: ctx.correlationId,
        ipAddress: ctx.ipAddress,
      });
      return deps.workflows.enqueue<RegisterWorkflow>(tx, REGISTER_WORKFLOW, {
        workflowId,
        args: [{ magicLinkId: magicLink.id, attemptId, correlationId: ctx.correlationId }],
        tenantId: null,
        // One run per magic link: a concurrent or later request with the same link is refused, but a run that
        // failed (e.g. a transient error) may be retried.
        idReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      });
    });
    // The workspace is created with this password even if Temporal is unreachable now (the relay starts it
    // later; its activity clears the hash), so the person can then log in without registering again.
    const result = await deps.workflows.awaitStarted<RegisterWorkflow>(startId, workflowId, {
      lost: () => new AppError('registration-proof-invalid'),
      pending: 'The registration is recorded and completes as soon as the workflow service is back; then log in with your password',
      release: () => scrubRegistrationAttempt(deps.db, attemptId),
    });
    // The workspace exists now; with a second factor on, the login on its host asks for the factor.
    const outcome = await deps.signIn.sessionOrChallenge(identity, { tenantId: result.tenantId, membershipId: result.membershipId, identityId: result.identityId }, ctx);
    return outcome.kind === 'challenge' ? { ...outcome, workspaceSlug: result.slug } : outcome;
  }

  return { requestMagicLink, register };
}
