import type { Sequelize } from 'sequelize';
import { identityIdByEmail } from '../../db/repositories/identity/identities';
import {
  countMagicLinksSince,
  findMagicLink,
  insertMagicLink,
  lockMagicLinkIssuer,
  markMagicLinkMailed,
  replaceMagicLinkToken,
  supersedeMagicLinks,
} from '../../db/repositories/identity/magic-links';
import { newOpaqueToken, sha256 } from '../../core/identity/secrets';
import type { Mailer, MailMessage } from '../../core/mail/mail';
import type { Logger } from '../../runtime/logger';
import type { Config } from '../../runtime/config';
import { sendRecordedMail } from '../mail/send-mail';
import type {
  RequestMagicLinkActivities,
  RequestMagicLinkInput,
  RequestMagicLinkResult,
  RequestPasswordResetActivities,
} from '../../contracts/identity';

export interface MailLinkDeps {
  db: Sequelize;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
  magicLinkTtlSeconds: number;
  magicLinksPerEmailPerHour: number;
  passwordReset: Config['passwordReset'];
}

type LinkPurpose = 'REGISTRATION' | 'PASSWORD_RESET';

/** What differs between the two links an address can be mailed: who may get one, how many, and the mail. */
interface LinkPolicy {
  ttlSeconds: number;
  perEmailPerHour: number;
  /** A reset link goes only to an address with an identity (the request answered 202 all the same). */
  needsIdentity: boolean;
  /** The key of the recorded mail, so a retried activity never mails twice. */
  mailKey: string;
  notMailed: string;
  mail(link: { token: string; email: string }): Pick<MailMessage, 'subject' | 'text'>;
}

/**
 * The activities of requestMagicLinkWorkflow (started by requestMagicLink) and requestPasswordResetWorkflow
 * (started by requestPasswordReset): one link mailer, the purpose its parameter. Both activity names stay, as
 * the workflows call them.
 */
export function createMailLinkActivities(deps: MailLinkDeps): RequestMagicLinkActivities & RequestPasswordResetActivities {
  const { db, mailer } = deps;
  const policies: Record<LinkPurpose, LinkPolicy> = {
    REGISTRATION: {
      ttlSeconds: deps.magicLinkTtlSeconds,
      perEmailPerHour: deps.magicLinksPerEmailPerHour,
      needsIdentity: false,
      mailKey: 'registration',
      notMailed: 'magic link not mailed',
      mail: ({ token, email }) => ({
        subject: 'Your registration link',
        text: [
          'Use this link within 30 minutes to create your workspace:',
          `${deps.publicUrl}/register?${new URLSearchParams({ token, email })}`,
          '',
          'If you did not ask for it, ignore this message.',
        ].join('\n'),
      }),
    },
    PASSWORD_RESET: {
      ttlSeconds: deps.passwordReset.ttlSeconds,
      perEmailPerHour: deps.passwordReset.perEmailPerHour,
      needsIdentity: true,
      mailKey: 'password-reset',
      notMailed: 'password reset link not mailed',
      mail: ({ token, email }) => ({
        subject: 'Reset your password',
        text: [
          `Use this link within ${Math.round(deps.passwordReset.ttlSeconds / 60)} minutes to choose a new password:`,
          `${deps.publicUrl}/reset-password?${new URLSearchParams({ token, email })}`,
          '',
          'Every session of your account ends when the password is reset.',
          'If you did not ask for it, ignore this message: your password stays as it is.',
        ].join('\n'),
      }),
    },
  };

  /**
   * Stores a fresh link of `purpose` (as a hash) under `magicLinkId`, supersedes the address's older ones of
   * that purpose and mails it. Idempotent per magicLinkId: once mailed, a retry does nothing; a retry before
   * mailing replaces the hash, so exactly one mailed link is ever valid for this id.
   */
  async function mailLink(purpose: LinkPurpose, input: RequestMagicLinkInput): Promise<RequestMagicLinkResult> {
    const policy = policies[purpose];
    const token = newOpaqueToken();
    const expiresAt = new Date(Date.now() + policy.ttlSeconds * 1000);
    const decision = await db.transaction(async (tx) => {
      await lockMagicLinkIssuer(tx, input.email, purpose);
      const existing = await findMagicLink(tx, input.magicLinkId);
      if (existing?.mailedAt) return 'already-mailed' as const;
      if (existing) {
        await replaceMagicLinkToken(tx, existing.id, { tokenHash: sha256(token), expiresAt });
        return 'mail' as const;
      }
      if (policy.needsIdentity && !(await identityIdByEmail(tx, input.email))) return 'no-identity' as const;
      const recent = await countMagicLinksSince(tx, input.email, { purpose, since: new Date(Date.now() - 3600_000) });
      if (recent >= policy.perEmailPerHour) return 'throttled' as const;
      await supersedeMagicLinks(tx, input.email, purpose);
      await insertMagicLink(tx, { id: input.magicLinkId, email: input.email, purpose, tokenHash: sha256(token), expiresAt });
      return 'mail' as const;
    });
    if (decision !== 'mail') {
      deps.logger.info(policy.notMailed, { magicLinkId: input.magicLinkId, reason: decision, correlationId: input.correlationId });
      return { mailed: false };
    }
    await sendRecordedMail({ db, mailer }, { key: `${policy.mailKey}:${input.magicLinkId}`, purpose }, {
      to: input.email,
      ...policy.mail({ token, email: input.email }),
    });
    await markMagicLinkMailed(db, input.magicLinkId);
    return { mailed: true };
  }

  return {
    mailMagicLink: (input) => mailLink('REGISTRATION', input),
    mailPasswordResetLink: (input) => mailLink('PASSWORD_RESET', input),
  };
}
