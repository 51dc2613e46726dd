import type { Sequelize } from 'sequelize';
import type { Mailer } from '../../core/mail';
import { AppError } from '../../core/problems';
import { outboxMessagesTo } from '../../db/repositories/mail/outbox';
import { publicOperation, type HandlersOf } from '../http/operation-handler';

export type MailOperation = 'listDevelopmentMail';

export function mailHandlers(deps: { db: Sequelize; mailer: Mailer }): HandlersOf<MailOperation> {
  return {
    /** The development outbox: exists only while the outbox adapter is active, on the central host. */
    listDevelopmentMail: publicOperation(async ({ query, ctx }) => {
      if (deps.mailer.kind !== 'outbox' || ctx.host.kind !== 'central') throw new AppError('not-found', 'No resource at GET /dev/mail');
      const messages = await outboxMessagesTo(deps.db, query.to.trim().toLowerCase(), 50);
      return { status: 200, body: messages.map((m) => ({ ...m, sentAt: m.sentAt.toISOString() })) };
    }),
  };
}
