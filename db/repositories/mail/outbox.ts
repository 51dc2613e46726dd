import { MailOutboxMessage } from '../../models';
import { transactionOf, type Db } from '../../connection';
import type { MailMessage } from '../../../core/mail';

// The development outbox: what the outbox mail adapter "sent", read back by GET /dev/mail.

export async function storeOutboxMessage(db: Db, message: MailMessage): Promise<void> {
  await MailOutboxMessage.create({ toAddress: message.to, subject: message.subject, text: message.text }, { transaction: transactionOf(db) });
}

/** The newest messages to one address first. */
export async function outboxMessagesTo(db: Db, address: string, limit: number): Promise<Array<MailMessage & { sentAt: Date }>> {
  const rows = await MailOutboxMessage.findAll({ where: { toAddress: address }, order: [['id', 'DESC']], limit, transaction: transactionOf(db) });
  return rows.map((m) => ({ to: m.toAddress, subject: m.subject, text: m.text, sentAt: m.sentAt }));
}
