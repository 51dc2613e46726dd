import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { enableEmailFactor, login, mailCount, nextCode } from '../../helpers/second-factors';

// The five-minute validity is config, shortened here so the expiry is observable without waiting.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ EMAIL_CODE_TTL_SECONDS: '3' });
});
afterAll(async () => {
  await stack.stop();
});

describe('email challenge expiry', () => {
  test('"email code: valid five minutes" (three seconds here): after expiry the right code is refused', async () => {
    const user = await registerWorkspace(stack);
    await enableEmailFactor(stack, user);
    const before = await mailCount(stack, user.email);
    const first = await login(stack, { email: user.email, password: user.password }).expect(202);
    const code = await nextCode(stack, user.email, before);
    await new Promise((r) => setTimeout(r, 4000));
    const res = await login(stack, { email: user.email, password: user.password, challengeId: first.body.challengeId, code }).expect(401);
    expect(res.body.type).toBe('/problems/invalid-second-factor');
  });
});
