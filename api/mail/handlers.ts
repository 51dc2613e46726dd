import type { Sequelize } from 'sequelize';
import type { Mailer } from '../../core/mail';
import { validateEmail, type MailDomains } from '../../core/email-validation';
import { AppError } from '../../core/problems';
import { outboxMessagesTo } from '../../db/repositories/mail/outbox';
import { publicOperation, type HandlersOf } from '../http/operation-handler';
import type { RequestLimits } from '../http/request-limits';

export type MailOperation = 'listDevelopmentMail' | 'validateEmail';

export function mailHandlers(deps: { db: Sequelize; mailer: Mailer; mailDomains: MailDomains; limits: RequestLimits }): HandlersOf<MailOperation> {
  return {
    /** The development outbox: exists only while the outbox adapter is active, on the central host. */
    listDevelopmentMail: publicOperation(async ({ query, ctx }) => {
      if (deps.mailer.kind !== 'outbox' || ctx.host.kind !== 'central') throw new AppError('not-found', 'No resource at GET /dev/mail');
      const messages = await outboxMessagesTo(deps.db, query.to.trim().toLowerCase(), 50);
      return { status: 200, body: messages.map((m) => ({ ...m, sentAt: m.sentAt.toISOString() })) };
    }),

    /** Syntax and the domain's mail servers; limited per client IP and per address before DNS is asked. */
    validateEmail: publicOperation(async ({ body, ctx }) => {
      await deps.limits.consume('emailValidation', { ip: ctx.ipAddress, target: body.email });
      return { status: 200, body: await validateEmail(body.email, deps.mailDomains) };
    }),
  };
}
