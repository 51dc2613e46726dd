import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, mailedInvitationToken, magicLinkTokenFrom, readMail, registerWorkspace, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { codeFrom, enableEmailFactor, isCodeMail, enableTotp, mailCount, nextCode, totpCode } from '../../helpers/second-factors';
import { until } from '../../helpers/worker-process';
import { startReceiver } from '../../helpers/webhook-deliveries';

// What a run leaves behind holds no secret: every API and worker log line (at debug level), every audit
// event of the workspaces, and every payload of every workflow history on the run's task queue. The run
// goes through each flow that handles a secret, and the scan looks for each secret it saw.

const logLines: string[] = [];
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ LOG_LEVEL: 'debug', MAIL_CALLBACK_TOKEN: `callback-${randomUUID()}` }, { log: (line) => logLines.push(line) });
});
afterAll(async () => {
  await stack.stop();
});

/** Payloads (metadata + data) anywhere in a history, decoded as text; other bytes are ids and tokens of Temporal's own. */
function payloadTexts(node: unknown, out: string[]): void {
  if (node === null || typeof node !== 'object') return;
  if (node instanceof Uint8Array) return;
  const record = node as Record<string, unknown>;
  if (record.data instanceof Uint8Array && record.metadata && typeof record.metadata === 'object') {
    out.push(Buffer.from(record.data).toString('utf8'));
    for (const value of Object.values(record.metadata as Record<string, unknown>)) {
      if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
    }
    return;
  }
  for (const value of Object.values(record)) payloadTexts(value, out);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A secret as it could appear: itself, and for binary hashes their hex and base64 forms. Digits-only codes must stand alone. */
function patterns(secret: string): RegExp[] {
  if (/^\d+$/.test(secret)) return [new RegExp(`(?<![0-9])${secret}(?![0-9])`)];
  return [new RegExp(escape(secret))];
}

describe('secret scan of everything a run leaves behind', () => {
  test('logs, audit events and decoded workflow histories hold no password, token, code, TOTP secret or hash', async () => {
    const secrets: Array<{ what: string; value: string }> = [];
    const keep = (what: string, value: string | undefined | null) => {
      if (value) secrets.push({ what, value });
    };

    // Registration: the password, the magic link from the mail, the token pair.
    const admin = await registerWorkspace(stack);
    keep('password', admin.password);
    keep('magic link', /token=([A-Za-z0-9_-]{43})/.exec((await readMail(stack, admin.email))[0]!.text)![1]);
    keep('access token', admin.accessToken);
    keep('refresh token', admin.refreshToken);
    const tenant = admin.me.tenantId;
    const host = `${admin.me.company.slug}.${stack.config.baseDomain}`;

    // Refresh and its replay.
    const refreshed = await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: admin.refreshToken }).expect(200);
    keep('refreshed refresh token', refreshed.body.refreshToken);
    await api(stack).post('/api/v1/auth/refresh').send({ refreshToken: admin.refreshToken }).expect(401);
    const session = (await api(stack).post('/api/v1/auth/login').send({ email: admin.email, password: admin.password }).expect(200)).body;
    keep('refresh token', session.refreshToken);

    // Email codes: turning them on, then a login with one.
    const coded: Registered = { ...admin, accessToken: session.accessToken, refreshToken: session.refreshToken };
    await enableEmailFactor(stack, coded);
    for (const mail of await readMail(stack, admin.email)) if (isCodeMail(mail)) keep('email code', codeFrom(mail));
    const before = await mailCount(stack, admin.email);
    const challenge = await api(stack).post('/api/v1/auth/login').send({ email: admin.email, password: admin.password }).expect(202);
    const code = await nextCode(stack, admin.email, before);
    keep('email code', code);
    const loggedIn = await api(stack).post('/api/v1/auth/login').send({ email: admin.email, password: admin.password, challengeId: challenge.body.challengeId, code }).expect(200);
    keep('refresh token', loggedIn.body.refreshToken);

    // An authenticator and recovery codes (second user, no email factor).
    const second = await registerWorkspace(stack);
    keep('password', second.password);
    const totp = await enableTotp(stack, second);
    keep('TOTP secret', totp.secret);
    for (const recovery of totp.recoveryCodes) keep('recovery code', recovery);
    const totpLogin = await api(stack).post('/api/v1/auth/login').send({ email: second.email, password: second.password, totpCode: totpCode(totp.secret, 1) });
    expect([200, 401]).toContain(totpLogin.status);
    const recoveryLogin = await api(stack).post('/api/v1/auth/login').send({ email: second.email, password: second.password, recoveryCode: totp.recoveryCodes[0] }).expect(200);
    keep('refresh token', recoveryLogin.body.refreshToken);

    // A password change.
    const newPassword = `a new password ${randomUUID()}`;
    keep('new password', newPassword);
    const changed = await api(stack).put('/api/v1/me/password').set(...bearer(loggedIn.body.accessToken))
      .send({ currentPassword: admin.password, newPassword, confirmPassword: newPassword });
    expect([204, 403]).toContain(changed.status);

    // Invitations: mailed and manual. The manual token of an address without an identity is refused and
    // mails the address its own link, which the new person accepts with a new password.
    const mailedTo = uniqueEmail('scan-mailed');
    await api(stack).post('/api/v1/membership-invitations?delivery=EMAIL').set(...bearer(loggedIn.body.accessToken)).send({ email: mailedTo, roles: ['VIEWER'] }).expect(201);
    keep('invitation token', await mailedInvitationToken(stack, mailedTo));
    const invitee = uniqueEmail('scan-manual');
    const manual = await api(stack).post('/api/v1/membership-invitations?delivery=MANUAL').set(...bearer(loggedIn.body.accessToken))
      .send({ email: invitee, roles: ['VIEWER'] }).expect(201);
    keep('invitation token', manual.body.token);
    const inviteePassword = `invitee password ${randomUUID()}`;
    keep('password', inviteePassword);
    const accept = (token: string) => api(stack).post('/api/v1/auth/membership-invitations/accept').set('Host', host).send({ token, password: inviteePassword });
    await accept(manual.body.token).expect(401);
    const joinToken = await mailedInvitationToken(stack, invitee);
    keep('invitation token (mailed join link)', joinToken);
    const accepted = await accept(joinToken).expect(200);
    keep('refresh token', accepted.body.refreshToken);

    // A password reset by the mailed link, with the authenticator as its second factor.
    const resetMails = (await readMail(stack, second.email)).length;
    await api(stack).post('/api/v1/auth/password-reset/request').send({ email: second.email }).expect(202);
    const resetToken = magicLinkTokenFrom((await waitForMail(stack, second.email, resetMails + 1))[0]!);
    keep('password reset token', resetToken);
    const resetPassword = `a reset password ${randomUUID()}`;
    keep('new password', resetPassword);
    const resetBody = { token: resetToken, email: second.email, newPassword: resetPassword, confirmPassword: resetPassword };
    await api(stack).post('/api/v1/auth/password-reset').send(resetBody).expect(202);
    await api(stack).post('/api/v1/auth/password-reset').send({ ...resetBody, recoveryCode: totp.recoveryCodes[1] }).expect(204);

    // A device token and a push to it; a provider callback with its shared token.
    const deviceToken = `scan-device-${randomUUID()}`;
    keep('device token', deviceToken);
    await api(stack).post('/api/v1/notifications/devices').set(...bearer(loggedIn.body.accessToken)).send({ token: deviceToken }).expect(201);
    const pushed = await api(stack).post('/api/v1/notifications/messages').set(...bearer(loggedIn.body.accessToken))
      .send({ recipientMembershipId: admin.me.membershipId, requestId: randomUUID(), title: 'Scan', body: 'Secret scan' }).expect(202);
    await until(async () => {
      const res = await api(stack).get(`/api/v1/notifications/messages/${pushed.body.id}`).set(...bearer(loggedIn.body.accessToken)).expect(200);
      return res.body.status === 'DELIVERED' ? true : null;
    }, 20_000, 'the push delivered');
    // A webhook endpoint's signing secret: answered at creation and at rotation, used to sign a test event each time.
    const receiver = await startReceiver();
    try {
      const hooks = '/api/v1/webhooks/endpoints';
      const endpoint = await api(stack).post(hooks).set(...bearer(loggedIn.body.accessToken)).send({ url: receiver.url, eventTypes: ['webhook.test'] }).expect(201);
      keep('webhook secret', endpoint.body.secret);
      keep('webhook secret (key)', endpoint.body.secret.slice('whsec_'.length));
      await api(stack).post(`${hooks}/${endpoint.body.id}/test`).set(...bearer(loggedIn.body.accessToken)).expect(202);
      const rotated = await api(stack).post(`${hooks}/${endpoint.body.id}/secret`).set(...bearer(loggedIn.body.accessToken)).expect(200);
      keep('rotated webhook secret', rotated.body.secret);
      keep('rotated webhook secret (key)', rotated.body.secret.slice('whsec_'.length));
      await api(stack).post(`${hooks}/${endpoint.body.id}/test`).set(...bearer(loggedIn.body.accessToken)).expect(202);
      await until(async () => (receiver.received.length >= 2 ? true : null), 20_000, 'both webhook test events delivered');
    } finally {
      await receiver.close();
    }
    keep('callback token', stack.config.mail.callbackToken);
    await api(stack).post('/api/v1/callbacks/email-events').set('Host', `callbacks.${stack.config.baseDomain}`).set('X-Auth', stack.config.mail.callbackToken)
      .send([{ event: 'delivered', sg_event_id: randomUUID(), sg_message_id: 'unknown.filter', timestamp: 1 }]).expect(204);
    await api(stack).post('/api/v1/callbacks/email-events').set('Host', `callbacks.${stack.config.baseDomain}`).set('X-Auth', 'a wrong callback token for the scan').send([]).expect(401);
    keep('wrong callback token', 'a wrong callback token for the scan');
    await api(stack).post('/api/v1/auth/logout').send({ refreshToken: accepted.body.refreshToken }).expect(204);

    // The stored hashes of this run: password hashes, and token hashes in hex and base64.
    const emails = [admin.email, second.email];
    const identities = await stack.admin.query<{ password_hash: string }>('SELECT password_hash FROM identities WHERE email IN (:emails)', {
      replacements: { emails },
      type: QueryTypes.SELECT,
    });
    for (const i of identities) keep('password hash', i.password_hash);
    const tokenHashes = await stack.admin.query<{ h: Buffer }>(
      `SELECT token_hash AS h FROM refresh_tokens WHERE tenant_id IN (:tenants)
       UNION ALL SELECT token_hash FROM membership_invitations WHERE tenant_id = :tenant
       UNION ALL SELECT mailed_token_hash FROM membership_invitations WHERE tenant_id = :tenant AND mailed_token_hash IS NOT NULL
       UNION ALL SELECT token_hash FROM magic_links WHERE email IN (:emails)`,
      { replacements: { tenants: [tenant, second.me.tenantId], tenant, emails }, type: QueryTypes.SELECT },
    );
    for (const { h } of tokenHashes) {
      keep('token hash (hex)', h.toString('hex'));
      keep('token hash (base64)', h.toString('base64'));
    }
    expect(secrets.filter((s) => s.what === 'email code').length).toBeGreaterThanOrEqual(2);
    expect(secrets.length).toBeGreaterThan(20);

    // Let the last workflows finish, then read everything the run left.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const histories: string[] = [];
    let workflows = 0;
    for await (const info of stack.temporal.workflow.list({ query: `TaskQueue = '${stack.taskQueue}'` })) {
      workflows += 1;
      const history = await stack.temporal.workflow.getHandle(info.workflowId, info.runId).fetchHistory();
      payloadTexts(history, histories);
    }
    expect(workflows).toBeGreaterThanOrEqual(8);
    expect(histories.length).toBeGreaterThan(workflows);
    const audit = await stack.admin.query<Record<string, unknown>>('SELECT * FROM audit_events WHERE tenant_id IN (:tenants)', {
      replacements: { tenants: [tenant, second.me.tenantId] },
      type: QueryTypes.SELECT,
    });
    expect(audit.length).toBeGreaterThan(10);
    expect(logLines.length).toBeGreaterThan(30);
    // The corpus is what it claims: decoded payloads carry the workspace's id, log lines its requests.
    expect(histories.some((text) => text.includes(tenant))).toBe(true);
    expect(logLines.some((line) => line.includes('/api/v1/auth/login'))).toBe(true);

    const places: Array<{ place: string; text: string }> = [
      ...logLines.map((text, i) => ({ place: `log line ${i}`, text })),
      ...audit.map((row) => ({ place: `audit event ${String(row.action)}`, text: JSON.stringify(row) })),
      ...histories.map((text, i) => ({ place: `workflow payload ${i}`, text })),
    ];
    const found: string[] = [];
    for (const { what, value } of secrets) {
      for (const pattern of patterns(value)) {
        const hit = places.find((p) => pattern.test(p.text));
        if (hit) found.push(`${what} in ${hit.place}: ${hit.text.slice(0, 200)}`);
      }
    }
    expect(found).toEqual([]);
  }, 120_000);
});
