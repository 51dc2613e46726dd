import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, requestMagicLink, uniqueEmail, waitForMail, type Registered } from '../../helpers/clients';
import { enableTotp, totpCode } from '../../helpers/second-factors';

// A MANUAL invitation hands its token to the inviter, who may be anyone with a free workspace: these are the
// rules that keep such a token from taking an address, telling who is registered, or locking a person out.
let stack: TestStack;
beforeAll(async () => {
  // Per-token request limits lifted: these tests are about the failure counts per email and client IP.
  stack = await startTestStack({ TRUST_PROXY: 'loopback', RATE_LIMIT_INVITATION_ACCEPT_PER_EMAIL: '1000/600' });
});
afterAll(async () => {
  await stack.stop();
});

let nextOctet = 1;
const clientIp = () => `203.0.113.${nextOctet++}`;
const hostOf = (who: Registered) => `${who.me.company.slug}.${stack.config.baseDomain}`;
const manualInvitation = async (admin: Registered, email: string): Promise<string> =>
  (await api(stack).post('/api/v1/membership-invitations?delivery=MANUAL').set(...bearer(admin.accessToken)).send({ email, roles: ['ADMIN'] }).expect(201)).body.token;
const accept = (host: string, token: string, password: string, ip = '198.51.100.1') =>
  api(stack).post('/api/v1/auth/membership-invitations/accept').set('Host', host).set('X-Forwarded-For', ip).send({ token, password });

async function count(sql: string, replacements: Record<string, unknown>): Promise<number> {
  const [row] = await stack.admin.query<{ n: number }>(sql, { replacements, type: QueryTypes.SELECT });
  return row!.n;
}

describe('acceptInvitation', () => {
  test('when an inviter accepts its own MANUAL invitation for an address nobody registered, then no identity is created and the owner later registers normally', async () => {
    const attacker = await registerWorkspace(stack);
    const victim = uniqueEmail('victim');
    const token = await manualInvitation(attacker, victim);
    expect((await accept(hostOf(attacker), token, 'the password the inviter chose').expect(401)).body.type).toBe('/problems/invalid-credentials');
    expect(await count('SELECT count(*)::int AS n FROM identities WHERE email = :victim', { victim })).toBe(0);
    // The address's reader got the join link (not the inviter's token), and can still register on their own.
    const [joinMail] = await waitForMail(stack, victim);
    expect(joinMail!.text).not.toContain(token);
    const registered = await registerWorkspace(stack, { email: victim, password: 'the owner chose this one' });
    expect(registered.me.roles).toEqual(['ADMIN']);
    // The inviter's password never works for the owner's address.
    await api(stack).post('/api/v1/auth/login').set('Host', hostOf(attacker)).send({ email: victim, password: 'the password the inviter chose' }).expect(401);
  });

  test('when the address has no identity or the password is wrong, then the answers are the same: nothing tells whether the email is registered', async () => {
    const inviter = await registerWorkspace(stack);
    const known = await registerWorkspace(stack);
    const unknown = uniqueEmail('unregistered');
    const toKnown = await manualInvitation(inviter, known.email);
    const toUnknown = await manualInvitation(inviter, unknown);
    // Twelve characters: too short for a new identity, yet the unknown address is not told apart by a 400.
    for (const password of ['twelve chars', 'a wrong but long enough password']) {
      const a = await accept(hostOf(inviter), toKnown, password);
      const b = await accept(hostOf(inviter), toUnknown, password);
      expect([a.status, b.status]).toEqual([401, 401]);
      const { instance: _a, ...bodyA } = a.body;
      const { instance: _b, ...bodyB } = b.body;
      expect(bodyB).toEqual(bodyA);
    }
  });

  test('when a stranger sends wrong passwords for a person with an authenticator, then none of the person\'s factor attempts are used and the person signs in', async () => {
    const inviter = await registerWorkspace(stack);
    const person = await registerWorkspace(stack);
    const { secret } = await enableTotp(stack, person);
    const token = await manualInvitation(inviter, person.email);
    const stranger = clientIp();
    for (let i = 0; i < 6; i++) await accept(hostOf(inviter), token, `wrong password number ${i}`, stranger).expect(401);
    expect(await count('SELECT count(*)::int AS n FROM factor_attempts WHERE identity_id = :id AND released_at IS NULL', { id: person.me.globalUserId })).toBe(0);
    const first = await api(stack).post('/api/v1/auth/login').set('Host', hostOf(person)).send({ email: person.email, password: person.password }).expect(202);
    expect(first.body.channel).toBe('TOTP');
    await api(stack).post('/api/v1/auth/login').set('Host', hostOf(person)).send({ email: person.email, password: person.password, totpCode: totpCode(secret, 1) }).expect(200);
  });

  test('when a stranger keeps guessing from one address, then that address is stopped (429) while the person accepts from another', async () => {
    const inviter = await registerWorkspace(stack);
    const person = await registerWorkspace(stack);
    const token = await manualInvitation(inviter, person.email);
    const stranger = clientIp();
    // Ten consecutive failures per email and address are allowed; the next failure blocks the pair.
    for (let i = 0; i < 11; i++) await accept(hostOf(inviter), token, `wrong password number ${i}`, stranger).expect(401);
    const blocked = await accept(hostOf(inviter), token, person.password, stranger).expect(429);
    expect(blocked.body.type).toBe('/problems/too-many-requests');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    await accept(hostOf(inviter), token, person.password, clientIp()).expect(200);
  });

  test('when the person registers after a stranger tried a MANUAL token, then the token still joins them with their own password', async () => {
    const inviter = await registerWorkspace(stack);
    const email = uniqueEmail('later');
    const token = await manualInvitation(inviter, email);
    await accept(hostOf(inviter), token, 'somebody else typed this', clientIp()).expect(401);
    await waitForMail(stack, email); // the join link
    const magicLink = await requestMagicLink(stack, email);
    await api(stack).post('/api/v1/auth/register').send({ token: magicLink, email, password: 'the real owner password', confirmPassword: 'the real owner password' }).expect(201);
    await accept(hostOf(inviter), token, 'the real owner password', clientIp()).expect(200);
  });
});
