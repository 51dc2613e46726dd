import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import {
  challengeStateQuery,
  EMAIL_CHALLENGE_WORKFLOW,
  verifyCodeUpdate,
  type EmailChallengeActivities,
  type EmailChallengeWorkflow,
} from '../../../contracts/identity';
import { emailChallengeWorkflowId } from '../../../contracts/workflow-ids';
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

describe('emailChallengeWorkflow: expiry', () => {
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

describe('emailChallengeWorkflow on its own, with stand-in activities (TestWorkflowEnvironment on the dev server)', () => {
  const identity = { identityId: randomUUID(), tenantId: randomUUID(), purpose: 'LOGIN' as const };
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `email-challenge-workflow-${randomUUID()}`;
  const forgotten: string[] = [];
  // The stand-in forget step waits for the test to release it, so the workflow is still open when the
  // test sends its late verification (with an instant stand-in it could already have completed).
  const forgetGates = new Map<string, () => void>();
  const held = new Map<string, Promise<void>>();
  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_ADDRESS });
    const activities: EmailChallengeActivities = {
      mailEmailChallengeCode: async ({ challengeId }) => `mac-of-the-code-for-${challengeId}`,
      forgetEmailChallengeCode: async ({ challengeId }) => {
        await held.get(challengeId);
        forgotten.push(challengeId);
      },
    };
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue, activities, workflowBundle: { codePath: stack.workflowBundlePath } });
    running = worker.run();
  });
  afterAll(async () => {
    worker.shutdown();
    await running;
    await env.teardown();
  });

  async function start(maxGuesses: number) {
    const challengeId = randomUUID();
    held.set(challengeId, new Promise<void>((resolve) => forgetGates.set(challengeId, resolve)));
    const release = () => forgetGates.get(challengeId)!();
    const handle = await env.client.workflow.start<EmailChallengeWorkflow>(EMAIL_CHALLENGE_WORKFLOW, {
      taskQueue,
      workflowId: emailChallengeWorkflowId(challengeId),
      args: [{ challengeId, ...identity, expiresAt: new Date(Date.now() + 60_000).toISOString(), maxGuesses, correlationId: randomUUID() }],
    });
    const verify = (codeMac: string, who = identity) => handle.executeUpdate(verifyCodeUpdate, { args: [{ ...who, codeMac }] });
    return { challengeId, handle, verify, release };
  }

  test('"five guesses": the fifth wrong one exhausts the challenge, and then even the right code is refused', async () => {
    const { challengeId, handle, verify, release } = await start(5);
    for (let i = 1; i <= 4; i++) expect(await verify(`wrong-${i}`)).toBe('WRONG_CODE');
    expect(await verify('wrong-5')).toBe('GUESSES_EXHAUSTED');
    expect(await verify(`mac-of-the-code-for-${challengeId}`)).toBe('GUESSES_EXHAUSTED');
    release();
    expect(await handle.result()).toBe('GUESSES_EXHAUSTED');
    expect(forgotten).toContain(challengeId);
  });

  test('a guess from another identity is rejected before it is recorded: it neither counts nor verifies', async () => {
    const { challengeId, handle, verify, release } = await start(2);
    const stranger = { ...identity, identityId: randomUUID() };
    for (let i = 0; i < 3; i++) await expect(verify(`mac-of-the-code-for-${challengeId}`, stranger)).rejects.toThrow();
    expect(await handle.query(challengeStateQuery)).toEqual({ guesses: 0, outcome: null });
    expect(await verify(`mac-of-the-code-for-${challengeId}`)).toBe('VERIFIED');
    expect(await verify(`mac-of-the-code-for-${challengeId}`)).toBe('ALREADY_USED');
    release();
    expect(await handle.result()).toBe('VERIFIED');
  });
});
