import { allHandlersFinished, condition, proxyActivities, setHandler, ApplicationFailure } from '@temporalio/workflow';
import { activityProfiles } from '../../contracts/activity-profiles';
import { FailureType } from '../../contracts/failures';
import {
  challengeStateQuery,
  verifyCodeUpdate,
  type EmailChallengeActivities,
  type EmailChallengeInput,
  type EmailChallengeOutcome,
} from '../../contracts/identity';

const { mailEmailChallengeCode, forgetEmailChallengeCode } = proxyActivities<EmailChallengeActivities>(activityProfiles.emailChallengeStep);

/**
 * One emailed second-factor code (workflow email-challenge-<challengeId>), started by login, stepUpSession,
 * challengeEmailFactorSetting, register, acceptInvitation and resetPassword: mails it, then accepts up to
 * `maxGuesses` verifications until it expires. Verification is an update, so the caller gets the answer synchronously and concurrent
 * verifications are decided one after another: at most one is ever VERIFIED.
 */
export async function emailChallengeWorkflow(input: EmailChallengeInput): Promise<EmailChallengeOutcome> {
  let codeMac: string | null = null;
  let guesses = 0;
  let outcome: EmailChallengeOutcome | null = null;

  setHandler(challengeStateQuery, () => ({ guesses, outcome }));
  setHandler(
    verifyCodeUpdate,
    async (request) => {
      await condition(() => codeMac !== null || outcome !== null);
      if (outcome === 'VERIFIED') return 'ALREADY_USED';
      if (outcome !== null) return outcome;
      guesses += 1;
      if (request.codeMac === codeMac) {
        outcome = 'VERIFIED';
        return 'VERIFIED';
      }
      if (guesses >= input.maxGuesses) {
        outcome = 'GUESSES_EXHAUSTED';
        return 'GUESSES_EXHAUSTED';
      }
      return 'WRONG_CODE';
    },
    {
      // Rejected before it is recorded, so a stranger's guess neither counts nor shows in history.
      validator: (request) => {
        if (request.identityId !== input.identityId || request.tenantId !== input.tenantId || request.purpose !== input.purpose) {
          throw ApplicationFailure.nonRetryable('The challenge belongs to another login', FailureType.ChallengeMismatch);
        }
      },
    },
  );

  codeMac = await mailEmailChallengeCode({
    challengeId: input.challengeId,
    identityId: input.identityId,
    purpose: input.purpose,
    correlationId: input.correlationId,
  });
  const remainingMs = Date.parse(input.expiresAt) - Date.now();
  const settled = await condition(() => outcome !== null, Math.max(remainingMs, 1));
  // From here on every late verification answers EXPIRED (the handler returns the outcome).
  if (!settled) outcome = 'EXPIRED';
  await condition(allHandlersFinished);
  await forgetEmailChallengeCode({ challengeId: input.challengeId });
  return outcome ?? 'EXPIRED';
}
