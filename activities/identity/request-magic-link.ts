import type { Sequelize } from 'sequelize';
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
import { sendRecordedMail } from '../mail/send-mail';
import type { Logger } from '../../runtime/logger';
import type { RequestMagicLinkActivities, RequestMagicLinkInput } from '../../contracts/identity';

export interface RequestMagicLinkDeps {
  db: Sequelize;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
  magicLinkTtlSeconds: number;
  magicLinksPerEmailPerHour: number;
}

/** The activities of requestMagicLinkWorkflow (started by requestMagicLink). */
export function createRequestMagicLinkActivities(deps: RequestMagicLinkDeps): RequestMagicLinkActivities {
  const { db, mailer } = deps;

  /**
   * Stores a fresh magic link (as a hash) under `magicLinkId`, supersedes older ones for the email and mails
   * it. Idempotent per magicLinkId: once mailed, a retry does nothing; a retry before mailing replaces the
   * hash, so exactly one mailed link is ever valid for this id.
   */
  async function mailMagicLink(input: RequestMagicLinkInput): Promise<{ mailed: boolean }> {
    const token = newOpaqueToken();
    const expiresAt = new Date(Date.now() + deps.magicLinkTtlSeconds * 1000);
    const decision = await db.transaction(async (tx) => {
      await lockMagicLinkIssuer(tx, input.email);
      const existing = await findMagicLink(tx, input.magicLinkId);
      if (existing?.mailedAt) return 'already-mailed' as const;
      if (existing) {
        await replaceMagicLinkToken(tx, existing.id, { tokenHash: sha256(token), expiresAt });
        return 'mail' as const;
      }
      const recent = await countMagicLinksSince(tx, input.email, { purpose: 'REGISTRATION', since: new Date(Date.now() - 3600_000) });
      if (recent >= deps.magicLinksPerEmailPerHour) return 'throttled' as const;
      await supersedeMagicLinks(tx, input.email, 'REGISTRATION');
      await insertMagicLink(tx, { id: input.magicLinkId, email: input.email, purpose: 'REGISTRATION', tokenHash: sha256(token), expiresAt });
      return 'mail' as const;
    });
    if (decision !== 'mail') {
      deps.logger.info('magic link not mailed', { magicLinkId: input.magicLinkId, reason: decision, correlationId: input.correlationId });
      return { mailed: false };
    }
    await sendRecordedMail({ db, mailer }, { key: `registration:${input.magicLinkId}`, purpose: 'REGISTRATION' }, {
      to: input.email,
      subject: 'Your registration link',
      text: [
        'Use this link within 30 minutes to create your workspace:',
        `${deps.publicUrl}/register?${new URLSearchParams({ token, email: input.email })}`,
        '',
        'If you did not ask for it, ignore this message.',
      ].join('\n'),
    });
    await markMagicLinkMailed(db, input.magicLinkId);
    return { mailed: true };
  }

  return { mailMagicLink };
}
