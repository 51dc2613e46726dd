import type { Sequelize } from 'sequelize';
import { identityIdByEmail } from '../../db/repositories/identity/identities';
import {
  countMagicLinksSince,
  findLiveMagicLink,
  findMagicLink,
  insertMagicLink,
  lockMagicLinkIssuer,
  markMagicLinkMailed,
  replaceMagicLinkToken,
  supersedeMagicLinks,
} from '../../db/repositories/identity/magic-links';
import { countMailsSince, mailStateByKey, reserveMail } from '../../db/repositories/mail/messages';
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
  linkResends: Config['linkResends'];
}

type LinkPurpose = 'REGISTRATION' | 'PASSWORD_RESET';

/** What differs between the two links an address can be mailed: who may get one, how many, and the mail. */
interface LinkPolicy {
  ttlSeconds: number;
  perEmailPerHour: number;
  /** A reset link goes only to an address with an identity (the request answered 202 all the same). */
  needsIdentity: boolean;
  /** The key of the recorded mail, so a retried activity never mails twice (`<mailKey>-resend:` for a re-send). */
  mailKey: string;
  notMailed: string;
  /** The mail of a link valid for `minutes` more. */
  mail(link: { token: string; email: string; minutes: number }): Pick<MailMessage, 'subject' | 'text'>;
}

/** What one request's activity does, decided under the address's issuer lock. */
type Decision =
  | { kind: 'already-mailed' | 'no-identity' | 'throttled' | 'resends-throttled' }
  /** Mail the link `magicLinkId` of this request (new, or drawn again by a retry before mailing). */
  | { kind: 'issue'; expiresAt: Date }
  /** Mail the address's live link again, under the new token now stored for it. */
  | { kind: 'resend'; mailKey: string; expiresAt: Date };

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
      mail: ({ token, email, minutes }) => ({
        subject: 'Your registration link',
        text: [
          `Use this link within ${minutes} minutes to create your workspace:`,
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
      mail: ({ token, email, minutes }) => ({
        subject: 'Reset your password',
        text: [
          `Use this link within ${minutes} minutes to choose a new password:`,
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
   *
   * Within the re-send window of the address's live link's mail, the request mails that link again instead:
   * a new token for the same link (the token is kept only as a hash, so the old one cannot be mailed again;
   * the newest mail's link is the one that works, as with a new link), its expiry kept, not one of the hourly
   * links. So strangers' requests cannot spend the links the owner's own request needs; re-sends have their
   * own bound per hour, and past it nothing is mailed or changed: the newest mail's link, at most a window
   * old, keeps working.
   */
  async function mailLink(purpose: LinkPurpose, input: RequestMagicLinkInput): Promise<RequestMagicLinkResult> {
    const policy = policies[purpose];
    const token = newOpaqueToken();
    const resendKey = `${policy.mailKey}-resend:${input.magicLinkId}`;
    const decision = await db.transaction(async (tx): Promise<Decision> => {
      await lockMagicLinkIssuer(tx, input.email, purpose);
      const existing = await findMagicLink(tx, input.magicLinkId);
      if (existing?.mailedAt) return { kind: 'already-mailed' };
      if (existing) {
        const expiresAt = new Date(Date.now() + policy.ttlSeconds * 1000);
        await replaceMagicLinkToken(tx, existing.id, { tokenHash: sha256(token), expiresAt });
        return { kind: 'issue', expiresAt };
      }
      // A re-send this request decided before: sent (a retry after it does nothing), or still to send.
      const resent = await mailStateByKey(tx, resendKey);
      if (resent !== null && resent !== 'SENDING') return { kind: 'already-mailed' };
      if (policy.needsIdentity && !(await identityIdByEmail(tx, input.email))) return { kind: 'no-identity' };
      const live = await findLiveMagicLink(tx, input.email, purpose);
      if (live && live.mailedAt!.getTime() > Date.now() - deps.linkResends.windowSeconds * 1000) {
        if (resent === null) {
          const since = new Date(Date.now() - 3600_000);
          const resends = await countMailsSince(tx, { to: input.email, purpose, keyPrefix: `${policy.mailKey}-resend:`, since });
          if (resends >= deps.linkResends.perEmailPerHour) return { kind: 'resends-throttled' };
          // Recorded with this decision, so the next one (under the same lock) counts it.
          await reserveMail(tx, { key: resendKey, purpose, to: input.email, provider: mailer.kind });
        }
        await replaceMagicLinkToken(tx, live.id, { tokenHash: sha256(token), expiresAt: live.expiresAt });
        return { kind: 'resend', mailKey: resendKey, expiresAt: live.expiresAt };
      }
      const recent = await countMagicLinksSince(tx, input.email, { purpose, since: new Date(Date.now() - 3600_000) });
      if (recent >= policy.perEmailPerHour) return { kind: 'throttled' };
      const expiresAt = new Date(Date.now() + policy.ttlSeconds * 1000);
      await supersedeMagicLinks(tx, input.email, purpose);
      await insertMagicLink(tx, { id: input.magicLinkId, email: input.email, purpose, tokenHash: sha256(token), expiresAt });
      return { kind: 'issue', expiresAt };
    });
    if (decision.kind !== 'issue' && decision.kind !== 'resend') {
      deps.logger.info(policy.notMailed, { magicLinkId: input.magicLinkId, reason: decision.kind, correlationId: input.correlationId });
      return { mailed: false };
    }
    const minutes = decision.kind === 'issue' ? Math.round(policy.ttlSeconds / 60) : Math.max(1, Math.floor((decision.expiresAt.getTime() - Date.now()) / 60_000));
    const mailKey = decision.kind === 'issue' ? `${policy.mailKey}:${input.magicLinkId}` : decision.mailKey;
    await sendRecordedMail({ db, mailer }, { key: mailKey, purpose }, { to: input.email, ...policy.mail({ token, email: input.email, minutes }) });
    // A re-sent link keeps the time of its first mail: the window runs from there.
    if (decision.kind === 'issue') await markMagicLinkMailed(db, input.magicLinkId);
    else deps.logger.info('live link re-sent', { magicLinkId: input.magicLinkId, correlationId: input.correlationId });
    return { mailed: true };
  }

  return {
    mailMagicLink: (input) => mailLink('REGISTRATION', input),
    mailPasswordResetLink: (input) => mailLink('PASSWORD_RESET', input),
  };
}
