import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, readMail, registerWorkspace, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { until } from '../../helpers/worker-process';
import { enableEmailFactor } from '../../helpers/second-factors';
import { withTenant } from '../../../db/connection';
import { openMail, recordMailSent, recordProviderEvents } from '../../../db/repositories/mail/messages';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ MAIL_CALLBACK_TOKEN: 'the-shared-callback-token-of-this-test' });
});
afterAll(async () => {
  await stack.stop();
});

const CALLBACK_HOST = () => `callbacks.${stack.config.baseDomain}`;
const callback = (events: unknown, token: string | null = 'the-shared-callback-token-of-this-test', host = CALLBACK_HOST()) => {
  const req = api(stack).post('/api/v1/callbacks/email-events').set('Host', host);
  if (token !== null) req.set('X-Auth', token);
  return req.send(events as object);
};
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const event = (messageId: string, kind: string, at: number, extra: Record<string, unknown> = {}) => ({
  email: 'ignored@example.com',
  timestamp: at,
  event: kind,
  sg_event_id: randomUUID(),
  sg_message_id: `${messageId}.filter0001.16648.5515E0B88.0`,
  'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
  category: ['transactional'],
  ...extra,
});
const status = async (who: Registered) => (await api(stack).get('/api/v1/me/email-status').set(...bearer(who.accessToken)).expect(200)).body;
const eventCount = async () =>
  (await stack.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_events', { type: QueryTypes.SELECT }))[0]!.n;

let user: Registered;
let registrationMail: { messageId: string; sentAt: string };
beforeAll(async () => {
  user = await registerWorkspace(stack);
  registrationMail = (await readMail(stack, user.email))[0]!;
  // The mail is recorded as SENT right after the outbox took it.
  await until(async () => ((await status(user)).delivery === 'SENT' ? true : null), 10_000, 'the registration mail SENT');
});

describe('receiveEmailEvents: the callback host and its shared token', () => {
  test('on the central or a tenant host the callback does not exist (404), whatever the token', async () => {
    const body = [event(registrationMail.messageId, 'delivered', seconds(registrationMail.sentAt))];
    expect((await callback(body, undefined, stack.config.baseDomain).expect(404)).body.type).toBe('/problems/not-found');
    await callback(body, undefined, `${user.me.company.slug}.${stack.config.baseDomain}`).expect(404);
    expect((await status(user)).delivery).toBe('SENT');
  });

  test('without X-Auth, or with a wrong one (also one of another length), 401 with an empty body; nothing is recorded', async () => {
    const before = await eventCount();
    const body = [event(registrationMail.messageId, 'delivered', seconds(registrationMail.sentAt))];
    for (const token of [null, 'the-shared-callback-token-of-this-tesT', 'short', '']) {
      const res = await callback(body, token).expect(401);
      expect(res.text).toBe('');
      expect(res.headers['www-authenticate']).toBe('X-Auth');
    }
    expect(await eventCount()).toBe(before);
    expect((await status(user)).delivery).toBe('SENT');
  });

  test('a body that is not an event batch is a 400 problem and records nothing', async () => {
    const before = await eventCount();
    for (const body of [[], {}, [{ event: 'delivered', timestamp: 1 }], [{ event: 'delivered', sg_event_id: 'x', timestamp: 'yesterday' }]]) {
      const res = await callback(body).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    expect(await eventCount()).toBe(before);
  });
});

describe('getMyEmailStatus and receiveEmailEvents: GET /me/email-status and the provider events', () => {
  test('registration mail: SENT, flow REGISTRATION, mailbox not yet verified', async () => {
    expect(await status(user)).toEqual({ delivery: 'SENT', flow: 'REGISTRATION', mailbox: 'UNVERIFIED', observedAt: expect.any(String) });
  });

  test('events in any order: delivered before processed ends DELIVERED; the same batch again changes nothing; opens are ignored', async () => {
    const t = seconds(registrationMail.sentAt);
    const batch = [
      event(registrationMail.messageId, 'delivered', t + 2, { response: '250 OK' }),
      event(registrationMail.messageId, 'open', t + 5),
      event(registrationMail.messageId, 'processed', t + 1),
    ];
    await callback(batch).expect(204);
    const after = await status(user);
    expect(after).toEqual({ delivery: 'DELIVERED', flow: 'REGISTRATION', mailbox: 'REACHABLE', observedAt: new Date((t + 2) * 1000).toISOString() });
    const count = await eventCount();
    await callback(batch).expect(204);
    expect(await eventCount()).toBe(count);
    expect(await status(user)).toEqual(after);
    // A late "processed" never moves a delivered mail back.
    await callback([event(registrationMail.messageId, 'processed', t + 3)]).expect(204);
    expect((await status(user)).delivery).toBe('DELIVERED');
  });

  test('a spam report after delivery: SPAM_REPORTED, and the mailbox is not one to write to any more', async () => {
    const other = await registerWorkspace(stack);
    const [mail] = await readMail(stack, other.email);
    await until(async () => ((await status(other)).delivery === 'SENT' ? true : null), 10_000, 'SENT');
    const t = seconds(mail!.sentAt);
    await callback([event(mail!.messageId, 'delivered', t + 1), event(mail!.messageId, 'spamreport', t + 60)]).expect(204);
    expect(await status(other)).toMatchObject({ delivery: 'SPAM_REPORTED', mailbox: 'UNREACHABLE' });
  });

  test('a second-factor code is recorded too: the newest mail is the code, flow EMAIL_CODE, under the outbox\'s message id', async () => {
    const coded = await registerWorkspace(stack);
    await enableEmailFactor(stack, coded);
    const [newest] = await readMail(stack, coded.email);
    expect(newest!.subject).toMatch(/Confirm turning on email sign-in codes/);
    const s = await until(async () => {
      const current = await status(coded);
      return current.flow === 'EMAIL_CODE' ? current : null;
    }, 10_000, 'the code mail recorded');
    expect(s).toMatchObject({ delivery: 'SENT', flow: 'EMAIL_CODE' });
    const [row] = await stack.admin.query<{ provider_message_id: string; purpose: string }>(
      'SELECT provider_message_id, purpose FROM mail_messages WHERE to_address = :email ORDER BY created_at DESC LIMIT 1',
      { replacements: { email: coded.email }, type: QueryTypes.SELECT },
    );
    expect(row).toEqual({ provider_message_id: newest!.messageId, purpose: 'EMAIL_CODE' });
  });

  test('a caller who was never mailed: NONE, NONE, UNVERIFIED at the time of asking', async () => {
    const before = Date.now();
    const outsider = await registerWorkspace(stack);
    await stack.admin.query('UPDATE mail_messages SET to_address = :moved WHERE to_address = :email', {
      replacements: { moved: `moved-${randomUUID()}@example.com`, email: outsider.email },
    });
    const s = await status(outsider);
    expect(s).toMatchObject({ delivery: 'NONE', flow: 'NONE', mailbox: 'UNVERIFIED' });
    expect(Date.parse(s.observedAt)).toBeGreaterThanOrEqual(before);
  });

  test('an event that arrives before its mail\'s message id is recorded waits, and applies once the id is known', async () => {
    const messageId = `early-${randomUUID()}`;
    const to = uniqueEmail('early');
    const outcome = await recordProviderEvents(stack.db, 'sendgrid', [
      { eventId: randomUUID(), providerMessageId: `${messageId}.filter0001.1.2.0`, event: 'bounce', state: 'BOUNCED', occurredAt: new Date(), detail: '550 5.1.1 unknown user' },
    ]);
    expect(outcome).toEqual({ recorded: 1, duplicates: 0, unmatched: 1 });
    const mailId = await openMail(stack.db, { key: `email-code:${randomUUID()}`, purpose: 'EMAIL_CODE', to, provider: 'sendgrid' });
    await recordMailSent(stack.db, mailId, messageId);
    const [row] = await stack.admin.query<{ state: string; detail: string }>('SELECT state, detail FROM mail_messages WHERE id = :mailId', {
      replacements: { mailId },
      type: QueryTypes.SELECT,
    });
    expect(row).toEqual({ state: 'BOUNCED', detail: '550 5.1.1 unknown user' });
  });
});

describe('receiveEmailEvents: the audit event of an emailed invitation follows its mail', () => {
  test('users.invitation.created: RECORDED, then SENT when the provider took the mail, then BOUNCED from the provider\'s event', async () => {
    const invitee = uniqueEmail('invitee');
    const created = await api(stack)
      .post('/api/v1/membership-invitations?delivery=EMAIL')
      .set(...bearer(user.accessToken))
      .send({ email: invitee, roles: ['VIEWER'] })
      .expect(201);
    const auditState = async () => {
      const res = await api(stack).get('/api/v1/audit-events').query({ subjectId: created.body.invitationId }).set(...bearer(user.accessToken)).expect(200);
      return res.body.items.find((e: { action: string }) => e.action === 'users.invitation.created').deliveryState as string;
    };
    const [mail] = await waitForMail(stack, invitee);
    await until(async () => ((await auditState()) === 'SENT' ? true : null), 10_000, 'the audit event SENT');
    await callback([event(mail!.messageId, 'bounce', seconds(mail!.sentAt) + 1, { reason: '550 5.1.1 The email account that you tried to reach does not exist', type: 'bounce' })]).expect(204);
    expect(await auditState()).toBe('BOUNCED');
  });

  test('the application role still cannot change an audit event, delivery state included; the owner of the trigger can change only that column', async () => {
    await expect(
      withTenant(stack.db, user.me.tenantId, (tx) => stack.db.query("UPDATE audit_events SET delivery_state = 'DELIVERED'", { transaction: tx })),
    ).rejects.toThrow(/permission denied/);
    await expect(
      stack.admin.query("UPDATE audit_events SET delivery_state = 'DELIVERED', details = 'edited' WHERE tenant_id = :t", { replacements: { t: user.me.tenantId } }),
    ).rejects.toThrow(/append-only: only delivery_state may change/);
  });
});
