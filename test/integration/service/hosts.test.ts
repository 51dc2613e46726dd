import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, registerWorkspace, type Registered } from '../../helpers/clients';

// "In development any Host is the central host, so a DNS-rebinding page can read /dev/mail; login also works
// on the callback host." The API answers only on the hosts nginx serves (the central host, a workspace host,
// the callback host) and on an IP address (a rebinding page cannot make a browser send one); the callback host
// serves the provider's callback and nothing else.

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const D = () => stack.config.baseDomain;

describe('hosts', () => {
  test('when the Host is a name outside the base domain, then every path is the 404 problem, the mail reader first', async () => {
    for (const host of ['attacker.example', `${D()}.attacker.example`, `attacker-${D()}`, `a.b.${D()}`, '']) {
      for (const [method, path] of [
        ['get', `/dev/mail?to=${encodeURIComponent(user.email)}`],
        ['get', '/api/v1'],
        ['get', '/docs'],
        ['post', '/api/v1/auth/login'],
      ] as const) {
        const res = await api(stack)[method](path).set('Host', host).send(method === 'post' ? { email: user.email, password: user.password } : undefined);
        expect({ host, path, status: res.status, type: res.body.type }).toEqual({ host, path, status: 404, type: '/problems/not-found' });
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
    }
  });

  test('when the Host is the central host, a workspace host or an IP address, then the API answers', async () => {
    for (const host of [D(), `api.${D()}`, `${user.me.company.slug}.${D()}`, `${D()}:3000`, '127.0.0.1', '127.0.0.1:3000', '[::1]:3000']) {
      const res = await api(stack).get('/api/v1').set('Host', host);
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
    }
    await api(stack).get('/dev/mail').query({ to: user.email }).set('Host', D()).expect(200);
  });

  test('when the Host is the callback host, then only the callback operation is served: login, the index, pages and the mail reader are 404', async () => {
    const host = `callbacks.${D()}`;
    const login = await api(stack).post('/api/v1/auth/login').set('Host', host).send({ email: user.email, password: user.password });
    expect({ status: login.status, type: login.body.type, tokens: 'accessToken' in login.body }).toEqual({ status: 404, type: '/problems/not-found', tokens: false });
    for (const path of ['/api/v1', '/healthz', '/register', '/dev/mail', '/api/v1/auth/magic-link/request']) {
      const res = await api(stack).get(path).set('Host', host);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    // The callback itself still answers there (401 without the shared token: it exists on this host).
    const callback = await api(stack).post('/api/v1/callbacks/email-events').set('Host', host).send([]);
    expect(callback.status).toBe(401);
  });
});
