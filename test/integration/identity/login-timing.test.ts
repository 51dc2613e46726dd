import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, uniqueEmail } from '../../helpers/clients';
import { login } from '../../helpers/second-factors';

// The production hash cost (Argon2id, 19 MiB, two passes) so the hash, not the test machine, dominates.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ PASSWORD_ARGON2_MEMORY_KIB: String(19 * 1024), PASSWORD_ARGON2_TIME_COST: '2' });
});
afterAll(async () => {
  await stack.stop();
});

// The fastest of each series: load on a shared machine only ever adds time, so the minimum is the closest
// reading of the work each path does, and the reading a timing attacker would take too.
const fastest = (values: number[]) => Math.min(...values);

describe('login timing', () => {
  test('"a login for an unknown email takes as long as one with a wrong password" (fastest of each within a factor of 1.5)', async () => {
    const user = await registerWorkspace(stack);
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, so machine load affects both series alike.
    for (let i = 0; i < 9; i++) {
      let started = performance.now();
      await login(stack, { email: user.email, password: 'a wrong password here' }).expect(401);
      known.push(performance.now() - started);
      started = performance.now();
      await login(stack, { email: uniqueEmail('nobody'), password: 'a wrong password here' }).expect(401);
      unknown.push(performance.now() - started);
    }
    const ratio = fastest(known) / fastest(unknown);
    expect(ratio).toBeGreaterThan(1 / 1.5);
    expect(ratio).toBeLessThan(1.5);
  }, 60_000);
});
