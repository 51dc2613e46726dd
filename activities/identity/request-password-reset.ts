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
import type { Mailer } from '../../core/mail/mail';
import type { Logger } from '../../runtime/logger';
import type { Config } from '../../runtime/config';
import { sendRecordedMail } from '../mail/send-mail';
import type { RequestPasswordResetActivities, RequestPasswordResetInput, RequestPasswordResetResult } from '../../contracts/identity';

export interface RequestPasswordResetDeps {
  db: Sequelize;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
  passwordReset: Config['passwordReset'];
}

/** The activities of requestPasswordResetWorkflow (started by requestPasswordReset). */
export function createRequestPasswordResetActivities(deps: RequestPasswordResetDeps): RequestPasswordResetActivities {
  const { db, mailer } = deps;

  /**
   * Stores a fresh reset link (a magic link, as a hash) under `magicLinkId`, supersedes the identity's older
   * ones and mails it. An address without an identity gets nothing (the request answered 202 all the same).
   * Idempotent per magicLinkId: once mailed, a retry does nothing; a retry before mailing replaces the hash,
   * so exactly one mailed link is ever valid for this id.
   */
  async function mailPasswordResetLink(input: RequestPasswordResetInput): Promise<RequestPasswordResetResult> {
    const token = newOpaqueToken();
    const expiresAt = new Date(Date.now() + deps.passwordReset.ttlSeconds * 1000);
    const purpose = 'PASSWORD_RESET' as const;
    const decision = await db.transaction(async (tx) => {
      await lockMagicLinkIssuer(tx, input.email, purpose);
      const existing = await findMagicLink(tx, input.magicLinkId);
      if (existing?.mailedAt) return 'already-mailed' as const;
      if (existing) {
        await replaceMagicLinkToken(tx, existing.id, { tokenHash: sha256(token), expiresAt });
        return 'mail' as const;
      }
      if (!(await identityIdByEmail(tx, input.email))) return 'no-identity' as const;
      const recent = await countMagicLinksSince(tx, input.email, { purpose, since: new Date(Date.now() - 3600_000) });
      if (recent >= deps.passwordReset.perEmailPerHour) return 'throttled' as const;
      await supersedeMagicLinks(tx, input.email, purpose);
      await insertMagicLink(tx, { id: input.magicLinkId, email: input.email, purpose, tokenHash: sha256(token), expiresAt });
      return 'mail' as const;
    });
    if (decision !== 'mail') {
      deps.logger.info('password reset link not mailed', { magicLinkId: input.magicLinkId, reason: decision, correlationId: input.correlationId });
      return { mailed: false };
    }
    const minutes = Math.round(deps.passwordReset.ttlSeconds / 60);
    await sendRecordedMail({ db, mailer }, { key: `password-reset:${input.magicLinkId}`, purpose: 'PASSWORD_RESET' }, {
      to: input.email,
      subject: 'Reset your password',
      text: [
        `Use this link within ${minutes} minutes to choose a new password:`,
        `${deps.publicUrl}/reset-password?${new URLSearchParams({ token, email: input.email })}`,
        '',
        'Every session of your account ends when the password is reset.',
        'If you did not ask for it, ignore this message: your password stays as it is.',
      ].join('\n'),
    });
    await markMagicLinkMailed(db, input.magicLinkId);
    return { mailed: true };
  }

  return { mailPasswordResetLink };
}
