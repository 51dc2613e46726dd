import { ApplicationFailure } from '@temporalio/common';
import type { Sequelize } from 'sequelize';
import { MailRejectedError, type Mailer, type MailMessage } from '../../core/mail/mail';
import { openMail, recordMailFailed, recordMailSent, type MailRef } from '../../db/repositories/mail/messages';
import { FailureType } from '../../contracts/failures';

/**
 * Sends one logical mail and records it: its row first (SENDING), then SENT with the provider's message id,
 * or FAILED when the provider refuses it for good (a non-retryable failure). A transient error is thrown
 * as it is, so the activity's retry policy sends again under the same row.
 */
export async function sendRecordedMail(
  deps: { db: Sequelize; mailer: Mailer },
  ref: Omit<MailRef, 'to' | 'provider'>,
  message: MailMessage,
): Promise<void> {
  const mailId = await openMail(deps.db, { ...ref, to: message.to, provider: deps.mailer.kind });
  let sent;
  try {
    sent = await deps.mailer.send(message);
  } catch (err) {
    if (err instanceof MailRejectedError) {
      await recordMailFailed(deps.db, mailId, err.message);
      throw ApplicationFailure.create({ type: FailureType.MailRejected, message: err.message, nonRetryable: true });
    }
    throw err;
  }
  await recordMailSent(deps.db, mailId, sent.messageId);
}
