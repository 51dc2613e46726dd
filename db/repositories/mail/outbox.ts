import { MailOutboxMessage } from '../../models';
import { transactionOf, type Db } from '../../connection';
import type { MailMessage } from '../../../core/mail/mail';

// The development outbox: what the outbox mail adapter "sent", read back by GET /dev/mail.

export async function storeOutboxMessage(db: Db, message: MailMessage & { messageId: string }): Promise<void> {
  await MailOutboxMessage.create(
    { toAddress: message.to, subject: message.subject, text: message.text, messageId: message.messageId },
    { transaction: transactionOf(db) },
  );
}

/** The newest messages to one address first. */
export async function outboxMessagesTo(db: Db, address: string, limit: number): Promise<Array<MailMessage & { messageId: string; sentAt: Date }>> {
  const rows = await MailOutboxMessage.findAll({ where: { toAddress: address }, order: [['id', 'DESC']], limit, transaction: transactionOf(db) });
  return rows.map((m) => ({ to: m.toAddress, subject: m.subject, text: m.text, messageId: m.messageId, sentAt: m.sentAt }));
}
