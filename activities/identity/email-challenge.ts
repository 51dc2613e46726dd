import type { Sequelize } from 'sequelize';
import { ApplicationFailure } from '@temporalio/common';
import type { Mailer } from '../../core/mail/mail';
import { sendRecordedMail } from '../mail/send-mail';
import { newEmailCode, type FactorSecrets } from '../../core/identity/factor-secrets';
import { deleteChallengeCode, storeChallengeCode } from '../../db/repositories/identity/email-challenge-codes';
import { identityEmail } from '../../db/repositories/identity/identities';
import type { EmailChallengeActivities, EmailChallengePurpose } from '../../contracts/identity';

export interface EmailChallengeDeps {
  db: Sequelize;
  mailer: Mailer;
  factorSecrets: FactorSecrets;
  emailCodeTtlSeconds: number;
}

const SUBJECTS: Record<EmailChallengePurpose, string> = {
  LOGIN: 'Your sign-in code',
  STEP_UP: 'Confirm it is you before a security change',
  ENABLE_EMAIL_FACTOR: 'Confirm turning on email sign-in codes',
  DISABLE_EMAIL_FACTOR: 'Confirm turning off email sign-in codes',
  PASSWORD_RESET: 'Confirm resetting your password',
};

/**
 * The activities of emailChallengeWorkflow (started by login, stepUpSession, challengeEmailFactorSetting,
 * register, acceptInvitation and resetPassword): mail the code, forget it when the challenge ends.
 */
export function createEmailChallengeActivities(deps: EmailChallengeDeps): EmailChallengeActivities {
  const { db, factorSecrets } = deps;

  /**
   * Mails the challenge's code and returns only its keyed MAC. The code is drawn once and kept encrypted
   * under the challenge id, so a retry mails the same code again instead of a second, different one.
   */
  async function mailEmailChallengeCode(input: {
    challengeId: string;
    identityId: string;
    purpose: EmailChallengePurpose;
    correlationId: string;
  }): Promise<string> {
    const sealed = await storeChallengeCode(db, input.identityId, {
      challengeId: input.challengeId,
      codeEncrypted: factorSecrets.encrypt('email-code', input.identityId, newEmailCode()),
    });
    const code = factorSecrets.decrypt('email-code', input.identityId, sealed);
    const email = await identityEmail(db, input.identityId);
    if (!email) throw ApplicationFailure.nonRetryable('identity no longer exists', 'IdentityGone');
    const minutes = Math.round(deps.emailCodeTtlSeconds / 60);
    await sendRecordedMail(deps, { key: `email-code:${input.challengeId}`, purpose: 'EMAIL_CODE' }, {
      to: email,
      subject: SUBJECTS[input.purpose],
      text: `Your verification code is ${code}. It expires in ${minutes} minutes and works once.\n\nIf you did not ask for it, change your password.`,
    });
    return factorSecrets.emailCodeMac(input.challengeId, code);
  }

  /** The challenge has ended: the encrypted code is no longer needed. */
  async function forgetEmailChallengeCode(input: { challengeId: string }): Promise<void> {
    await deleteChallengeCode(db, input.challengeId);
  }

  return { mailEmailChallengeCode, forgetEmailChallengeCode };
}
