import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, magicLinkTokenFrom, PASSWORD, readMail, registerWorkspace, requestMagicLink, uniqueEmail, waitForMail } from '../../helpers/clients';

// A request for a link (registration or password reset) while the address's live link was mailed less than
// MAGIC_LINK_RESEND_WINDOW_SECONDS ago mails that same link again, under a new token (the link's token is kept
// only as a hash, so the mail cannot carry the old one): the newest mail's link works, the link keeps its
// expiry and is not another of the address's hourly links. Re-sends are bounded per address and hour apart.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ MAGIC_LINK_RESENDS_PER_EMAIL_PER_HOUR: '2' });
});
afterAll(async () => {
  await stack.stop();
});

interface LinkRow {
  id: string;
  expires_at: Date;
  superseded: boolean;
}

const links = (email: string, purpose: 'REGISTRATION' | 'PASSWORD_RESET') =>
  stack.admin.query<LinkRow>(
    'SELECT id, expires_at, superseded_at IS NOT NULL AS superseded FROM magic_links WHERE email = :email AND purpose = :purpose ORDER BY created_at',
    { replacements: { email, purpose }, type: QueryTypes.SELECT },
  );

const register = (email: string, token: string) => api(stack).post('/api/v1/auth/register').send({ token, email, password: PASSWORD, confirmPassword: PASSWORD });

/** The result of the newest link workflow started for the address. */
async function newestRequestResult(email: string, workflowType: string): Promise<unknown> {
  const [start] = await stack.admin.query<{ workflow_id: string }>(
    'SELECT workflow_id FROM workflow_starts WHERE workflow_type = :workflowType AND args::text LIKE :like ORDER BY created_at DESC LIMIT 1',
    { replacements: { workflowType, like: `%${email}%` }, type: QueryTypes.SELECT },
  );
  return stack.temporal.workflow.getHandle(start!.workflow_id).result();
}

/**
 * Asks for a registration link and waits for its workflow to end: the activity records the link as mailed
 * just after the mail leaves, so a test that reads the mail and goes on at once could race that write.
 */
async function requestSettledLink(email: string): Promise<string> {
  const token = await requestMagicLink(stack, email);
  await newestRequestResult(email, 'requestMagicLinkWorkflow');
  return token;
}

describe('link requests within the re-send window mail the live link again', () => {
  test('when a registration link is asked for again at once, then the same link is mailed again under a new token: one link, its expiry kept, only the newest mail opens it', async () => {
    const email = uniqueEmail();
    const first = await requestSettledLink(email);
    const [issued] = await links(email, 'REGISTRATION');
    const second = await requestSettledLink(email);
    expect(second).not.toBe(first);
    expect(await links(email, 'REGISTRATION')).toEqual([{ id: issued!.id, expires_at: issued!.expires_at, superseded: false }]);
    expect((await register(email, first).expect(400)).body.type).toBe('/problems/registration-proof-invalid');
    await register(email, second).expect(201);
  });

  test('when re-sends reach their bound for the hour, then a request mails nothing and changes nothing: the newest mailed link keeps working', async () => {
    const email = uniqueEmail();
    await requestSettledLink(email);
    await requestSettledLink(email);
    const newest = await requestSettledLink(email); // the second re-send: the bound
    await api(stack).post('/api/v1/auth/magic-link/request').send({ email }).expect(202);
    expect(await newestRequestResult(email, 'requestMagicLinkWorkflow')).toEqual({ mailed: false });
    expect(await readMail(stack, email)).toHaveLength(3);
    expect(await links(email, 'REGISTRATION')).toHaveLength(1);
    await register(email, newest).expect(201);
  });

  test('when the live link was mailed longer ago than the window, then a request issues a new link that supersedes it', async () => {
    const email = uniqueEmail();
    const first = await requestSettledLink(email);
    await stack.admin.query(`UPDATE magic_links SET mailed_at = now() - interval '11 minutes' WHERE email = :email`, { replacements: { email } });
    const second = await requestSettledLink(email);
    expect((await links(email, 'REGISTRATION')).map((l) => l.superseded)).toEqual([true, false]);
    expect((await register(email, first).expect(400)).body.type).toBe('/problems/registration-proof-invalid');
    await register(email, second).expect(201);
  });

  test('when a password reset link is asked for again at once, then the same link is mailed again under a new token, which resets', async () => {
    const user = await registerWorkspace(stack);
    const resetLink = async () => {
      const before = (await readMail(stack, user.email)).length;
      await api(stack).post('/api/v1/auth/password-reset/request').send({ email: user.email }).expect(202);
      const token = magicLinkTokenFrom((await waitForMail(stack, user.email, before + 1))[0]!);
      await newestRequestResult(user.email, 'requestPasswordResetWorkflow');
      return token;
    };
    const first = await resetLink();
    const second = await resetLink();
    expect(await links(user.email, 'PASSWORD_RESET')).toHaveLength(1);
    const body = (token: string) => ({ token, email: user.email, newPassword: 'a brand new password', confirmPassword: 'a brand new password' });
    expect((await api(stack).post('/api/v1/auth/password-reset').send(body(first)).expect(400)).body.type).toBe('/problems/password-reset-invalid');
    await api(stack).post('/api/v1/auth/password-reset').send(body(second)).expect(204);
  });
});
