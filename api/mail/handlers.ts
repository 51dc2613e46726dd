import type { Sequelize } from 'sequelize';
import { emailStatus, SENDGRID_EVENT_STATES, type Mailer } from '../../core/mail/mail';
import { validateEmail, type MailDomains } from '../../core/identity/email-validation';
import type { Logger } from '../../runtime/logger';
import { AppError } from '../../core/shared/problems';
import { outboxMessagesTo } from '../../db/repositories/mail/outbox';
import { mailsTo, recordProviderEvents, type ProviderEvent } from '../../db/repositories/mail/messages';
import { identityEmail } from '../../db/repositories/identity/identities';
import { callbackOperation, memberOperation, publicOperation, type HandlersOf, type Schemas } from '../http/operation-handler';
import type { RequestLimits } from '../http/request-limits';

export type MailOperation = 'listDevelopmentMail' | 'validateEmail' | 'getMyEmailStatus' | 'receiveEmailEvents';

/** SendGrid's delivery events as the service records them; other event types (opens, clicks…) are dropped. */
function deliveryEvents(batch: Schemas['EmailEvent'][]): ProviderEvent[] {
  const events: ProviderEvent[] = [];
  for (const e of batch) {
    const state = SENDGRID_EVENT_STATES[e.event];
    if (!state) continue;
    events.push({
      eventId: e.sg_event_id,
      providerMessageId: e.sg_message_id ?? null,
      event: e.event,
      state,
      occurredAt: new Date(e.timestamp * 1000),
      detail: (e.reason ?? e.response ?? null)?.slice(0, 500) ?? null,
    });
  }
  return events;
}

export function mailHandlers(deps: {
  db: Sequelize;
  mailer: Mailer;
  mailDomains: MailDomains;
  limits: RequestLimits;
  logger: Logger;
  now: () => Date;
}): HandlersOf<MailOperation> {
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

    /** The newest mail to the caller's own email and what the provider reported about its mailbox. */
    getMyEmailStatus: memberOperation(async ({ principal }) => {
      const email = await identityEmail(deps.db, principal.identityId);
      if (!email) throw new AppError('not-found', 'Your identity no longer exists');
      const { latest, settled } = await mailsTo(deps.db, email);
      const status = emailStatus(latest, settled, deps.now());
      return { status: 200, body: { ...status, observedAt: status.observedAt.toISOString() } };
    }),

    /** SendGrid's event webhook (the callback guard has checked the host and X-Auth). */
    receiveEmailEvents: callbackOperation(async ({ body, ctx }) => {
      const events = deliveryEvents(body);
      const outcome = await recordProviderEvents(deps.db, 'sendgrid', events);
      deps.logger.info('mail events received', {
        correlationId: ctx.correlationId,
        received: body.length,
        ignored: body.length - events.length,
        ...outcome,
      });
      return { status: 204 };
    }),
  };
}
