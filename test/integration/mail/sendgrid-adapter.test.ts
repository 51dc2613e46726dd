import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { QueryTypes } from 'sequelize';
import { createSendGridMailer } from '../../../adapters/mail';
import { MailRejectedError } from '../../../core/mail/mail';
import { sendRecordedMail } from '../../../activities/mail/send-mail';
import { startFakeSendGrid, type FakeSendGrid } from '../../helpers/fake-sendgrid';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { uniqueEmail } from '../../helpers/clients';

let stack: TestStack;
let fake: FakeSendGrid;
beforeAll(async () => {
  stack = await startTestStack({}, { worker: false });
  fake = await startFakeSendGrid();
});
afterAll(async () => {
  await fake.close();
  await stack.stop();
});

const mailer = () => createSendGridMailer({ apiKey: 'SG.test-key', from: 'no-reply@accounting.test', apiUrl: fake.url, timeoutMs: 2000 });
const message = (to = uniqueEmail('sg')) => ({ to, subject: 'Your sign-in code', text: 'Your verification code is 12345678.' });

async function mailRow(key: string) {
  const [row] = await stack.admin.query<{ state: string; provider: string; provider_message_id: string | null; detail: string | null }>(
    'SELECT state, provider, provider_message_id, detail FROM mail_messages WHERE mail_key = :key',
    { replacements: { key }, type: QueryTypes.SELECT },
  );
  return row;
}

describe('the SendGrid adapter against a local fake of its API', () => {
  test('202: one POST /v3/mail/send with the API key, plain text, sandbox mode off and click tracking off; the X-Message-Id is answered', async () => {
    const m = message();
    const sent = await mailer().send(m);
    expect(sent.messageId).toBe(fake.accepted.at(-1));
    const request = fake.requests.at(-1)!;
    expect(request.path).toBe('/v3/mail/send');
    expect(request.authorization).toBe('Bearer SG.test-key');
    expect(request.body).toMatchObject({
      from: { email: 'no-reply@accounting.test' },
      subject: m.subject,
      personalizations: [{ to: [{ email: m.to }] }],
      content: [{ type: 'text/plain', value: m.text }],
      mail_settings: { sandbox_mode: { enable: false } },
      tracking_settings: { click_tracking: { enable: false, enable_text: false } },
    });
  });

  test('a 400 (e.g. a malformed address) is a permanent refusal carrying SendGrid\'s reason', async () => {
    fake.answers.push({ status: 400, errors: [{ message: 'Does not contain a valid address.', field: 'personalizations.0.to.0.email' }] });
    const err = await mailer().send(message()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MailRejectedError);
    expect((err as MailRejectedError).status).toBe(400);
    expect((err as Error).message).toMatch(/SendGrid refused the message \(400\): personalizations\.0\.to\.0\.email: Does not contain a valid address/);
  });

  test.each([429, 500, 503])('a %d is transient: a plain error, retried by the activity', async (status) => {
    fake.answers.push({ status });
    const err = await mailer().send(message()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(MailRejectedError);
    expect((err as Error).message).toBe(`SendGrid answered ${status}`);
  });

  test('an API that does not answer is transient too', async () => {
    const unreachable = createSendGridMailer({ apiKey: 'SG.k', from: 'a@b.test', apiUrl: 'http://127.0.0.1:9', timeoutMs: 500 });
    const err = await unreachable.send(message()).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(MailRejectedError);
    expect((err as Error).message).toMatch(/^SendGrid unreachable \(ECONNREFUSED\)$/);
  });
});

describe('every mail is recorded with its message id and state', () => {
  test('accepted: SENT under SendGrid\'s message id; a retry of the same logical mail reuses its row', async () => {
    const key = `email-code:${randomUUID()}`;
    await sendRecordedMail({ db: stack.db, mailer: mailer() }, { key, purpose: 'EMAIL_CODE' }, message());
    expect(await mailRow(key)).toEqual({ state: 'SENT', provider: 'sendgrid', provider_message_id: fake.accepted.at(-1), detail: null });
    await sendRecordedMail({ db: stack.db, mailer: mailer() }, { key, purpose: 'EMAIL_CODE' }, message());
    const [{ n }] = await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_messages WHERE mail_key = :key', {
      replacements: { key },
      type: QueryTypes.SELECT,
    });
    expect(n).toBe(1);
  });

  test('refused for good: FAILED with the reason, and a non-retryable MailRejected failure for the workflow', async () => {
    const key = `email-code:${randomUUID()}`;
    fake.answers.push({ status: 403, errors: [{ message: 'The from address does not match a verified Sender Identity.' }] });
    const err = await sendRecordedMail({ db: stack.db, mailer: mailer() }, { key, purpose: 'EMAIL_CODE' }, message()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'MailRejected', nonRetryable: true });
    expect(await mailRow(key)).toMatchObject({ state: 'FAILED', provider_message_id: null, detail: expect.stringMatching(/403.*verified Sender Identity/) });
  });

  test('a transient failure leaves the mail SENDING for the next attempt', async () => {
    const key = `email-code:${randomUUID()}`;
    fake.answers.push({ status: 503 });
    await expect(sendRecordedMail({ db: stack.db, mailer: mailer() }, { key, purpose: 'EMAIL_CODE' }, message())).rejects.toThrow('SendGrid answered 503');
    expect(await mailRow(key)).toMatchObject({ state: 'SENDING', provider_message_id: null });
    await sendRecordedMail({ db: stack.db, mailer: mailer() }, { key, purpose: 'EMAIL_CODE' }, message());
    expect(await mailRow(key)).toMatchObject({ state: 'SENT', provider_message_id: fake.accepted.at(-1) });
  });
});
