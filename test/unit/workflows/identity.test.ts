import { randomUUID } from 'node:crypto';
import { activityInfo } from '@temporalio/activity';
import { WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { activityProfiles } from '../../../contracts/activity-profiles';
import { FailureType } from '../../../contracts/failures';
import {
  challengeStateQuery,
  EMAIL_CHALLENGE_WORKFLOW,
  REGISTER_WORKFLOW,
  REQUEST_MAGIC_LINK_WORKFLOW,
  REQUEST_PASSWORD_RESET_WORKFLOW,
  verifyCodeUpdate,
  type EmailChallengeActivities,
  type EmailChallengeWorkflow,
  type RegisterActivities,
  type RegisterResult,
  type RegisterWorkflow,
  type RequestMagicLinkActivities,
  type RequestMagicLinkWorkflow,
  type RequestPasswordResetActivities,
  type RequestPasswordResetWorkflow,
  type VerifyCodeRequest,
} from '../../../contracts/identity';
import { TENANT_ID } from '../../../contracts/search-attributes';
import { emailChallengeWorkflowId, registerWorkflowId, requestMagicLinkWorkflowId, requestPasswordResetWorkflowId } from '../../../contracts/workflow-ids';
import { expectProfiles, failureOf, gate, outage, SETUP_TIMEOUT_MS, startWorkflowEnvironment, type WorkflowTestEnvironment } from './environment';

let t: WorkflowTestEnvironment;
beforeAll(async () => {
  t = await startWorkflowEnvironment();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t?.teardown();
});

const linkInput = () => ({ magicLinkId: randomUUID(), email: `${randomUUID()}@example.com`, correlationId: randomUUID() });

describe('requestMagicLinkWorkflow', () => {
  const start = (taskQueue: string, input = linkInput()) =>
    t.client.workflow.start<RequestMagicLinkWorkflow>(REQUEST_MAGIC_LINK_WORKFLOW, { taskQueue, workflowId: requestMagicLinkWorkflowId(input.magicLinkId), args: [input] });

  test('when the link is mailed, then the run answers what the activity answered, on the mailDelivery profile', async () => {
    const seen: unknown[] = [];
    const activities: RequestMagicLinkActivities = {
      mailMagicLink: async (input) => {
        seen.push(input);
        return { mailed: true };
      },
    };
    const input = linkInput();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      expect(await handle.result()).toEqual({ mailed: true });
      expect(seen).toEqual([input]);
      await expectProfiles(handle, { mailMagicLink: activityProfiles.mailDelivery });
    });
  });

  test('when the mail provider is down twice, then the third attempt mails the link', async () => {
    const attempts: number[] = [];
    const activities: RequestMagicLinkActivities = {
      mailMagicLink: async () => {
        attempts.push(activityInfo().attempt);
        if (activityInfo().attempt <= 2) throw outage('MailUnavailable');
        return { mailed: true };
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue)).result()).toEqual({ mailed: true });
    });
    expect(attempts).toEqual([1, 2, 3]);
  });

  test('when the provider refuses the mail for good, then the run fails with MailRejected after one attempt', async () => {
    let attempts = 0;
    const activities: RequestMagicLinkActivities = {
      mailMagicLink: async () => {
        attempts += 1;
        throw ApplicationFailure.create({ type: FailureType.MailRejected, message: 'the address was refused', nonRetryable: true });
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      const failure = await failureOf((await start(taskQueue)).result());
      expect(failure).toMatchObject({ type: FailureType.MailRejected, message: 'the address was refused' });
    });
    expect(attempts).toBe(1);
  });
});

describe('requestPasswordResetWorkflow', () => {
  const start = (taskQueue: string, input = linkInput()) =>
    t.client.workflow.start<RequestPasswordResetWorkflow>(REQUEST_PASSWORD_RESET_WORKFLOW, { taskQueue, workflowId: requestPasswordResetWorkflowId(input.magicLinkId), args: [input] });

  test('when the identity has no address on file, then the run answers mailed false, on the mailDelivery profile', async () => {
    const activities: RequestPasswordResetActivities = { mailPasswordResetLink: async () => ({ mailed: false }) };
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue);
      expect(await handle.result()).toEqual({ mailed: false });
      await expectProfiles(handle, { mailPasswordResetLink: activityProfiles.mailDelivery });
    });
  });

  test('when the mail provider is down twice, then the third attempt mails the link', async () => {
    const attempts: number[] = [];
    const activities: RequestPasswordResetActivities = {
      mailPasswordResetLink: async () => {
        attempts.push(activityInfo().attempt);
        if (activityInfo().attempt <= 2) throw outage('MailUnavailable');
        return { mailed: true };
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue)).result()).toEqual({ mailed: true });
    });
    expect(attempts).toEqual([1, 2, 3]);
  });

  test('when the provider refuses the mail for good, then the run fails with MailRejected after one attempt', async () => {
    let attempts = 0;
    const activities: RequestPasswordResetActivities = {
      mailPasswordResetLink: async () => {
        attempts += 1;
        throw ApplicationFailure.create({ type: FailureType.MailRejected, message: 'the address was refused', nonRetryable: true });
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      expect(await failureOf((await start(taskQueue)).result())).toMatchObject({ type: FailureType.MailRejected });
    });
    expect(attempts).toBe(1);
  });
});

describe('registerWorkflow', () => {
  const registered = (): RegisterResult => ({
    tenantId: randomUUID(),
    legalEntityId: randomUUID(),
    identityId: randomUUID(),
    userId: randomUUID(),
    membershipId: randomUUID(),
    slug: `acme-${randomUUID().slice(0, 8)}`,
  });
  const start = (taskQueue: string) => {
    const input = { magicLinkId: randomUUID(), attemptId: randomUUID(), correlationId: randomUUID() };
    return t.client.workflow.start<RegisterWorkflow>(REGISTER_WORKFLOW, { taskQueue, workflowId: registerWorkflowId(input.magicLinkId), args: [input] });
  };

  test('when the workspace is created, then the run answers its ids and carries its tenant as TenantId, on the awaitedTransaction profile', async () => {
    const result = registered();
    const activities: RegisterActivities = { createRegisteredWorkspace: async () => result };
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue);
      expect(await handle.result()).toEqual(result);
      expect((await handle.describe()).typedSearchAttributes.get(TENANT_ID)).toBe(result.tenantId);
      await expectProfiles(handle, { createRegisteredWorkspace: activityProfiles.awaitedTransaction });
    });
  });

  test('when the database fails twice, then the third attempt creates the workspace', async () => {
    const result = registered();
    const attempts: number[] = [];
    const activities: RegisterActivities = {
      createRegisteredWorkspace: async () => {
        attempts.push(activityInfo().attempt);
        if (activityInfo().attempt <= 2) throw outage('DatabaseUnavailable');
        return result;
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue)).result()).toEqual(result);
    });
    expect(attempts).toEqual([1, 2, 3]);
  });

  test.each([FailureType.MagicLinkInvalid, FailureType.InvalidCredentials])(
    'when the activity refuses with %s, then the run fails with that type after one attempt and names no tenant',
    async (type) => {
      let attempts = 0;
      const activities: RegisterActivities = {
        createRegisteredWorkspace: async () => {
          attempts += 1;
          throw ApplicationFailure.create({ type, message: 'refused', nonRetryable: true });
        },
      };
      await t.withWorker(activities, async (taskQueue) => {
        const handle = await start(taskQueue);
        expect(await failureOf(handle.result())).toMatchObject({ type, nonRetryable: true });
        expect((await handle.describe()).typedSearchAttributes.get(TENANT_ID)).toBeUndefined();
      });
      expect(attempts).toBe(1);
    },
  );
});

describe('emailChallengeWorkflow', () => {
  const who = { identityId: randomUUID(), tenantId: randomUUID(), purpose: 'LOGIN' as const };
  const macOf = (challengeId: string) => `mac-of-the-code-for-${challengeId}`;

  /**
   * Stand-in activities: the mail answers the code's MAC once `mailed` opens, and the forget step waits for
   * `forgettable`, so the run is still open when a test sends a late verification.
   */
  function standIns(options: { mailed?: Promise<void>; forgettable?: Promise<void>; mail?: () => void } = {}) {
    const calls: string[] = [];
    const activities: EmailChallengeActivities = {
      mailEmailChallengeCode: async ({ challengeId }) => {
        calls.push(`mail#${activityInfo().attempt}`);
        options.mail?.();
        await options.mailed;
        return macOf(challengeId);
      },
      forgetEmailChallengeCode: async () => {
        await options.forgettable;
        calls.push('forget');
      },
    };
    return { calls, activities };
  }

  async function start(taskQueue: string, options: { maxGuesses?: number; expiresInMs?: number } = {}) {
    const challengeId = randomUUID();
    const expiresAt = Date.now() + (options.expiresInMs ?? 60_000);
    const handle = await t.client.workflow.start<EmailChallengeWorkflow>(EMAIL_CHALLENGE_WORKFLOW, {
      taskQueue,
      workflowId: emailChallengeWorkflowId(challengeId),
      args: [
        {
          challengeId,
          ...who,
          expiresAt: new Date(expiresAt).toISOString(),
          maxGuesses: options.maxGuesses ?? 5,
          correlationId: randomUUID(),
        },
      ],
    });
    const request = (codeMac: string, asker: Omit<VerifyCodeRequest, 'codeMac'> = who): VerifyCodeRequest => ({ ...asker, codeMac });
    return {
      handle,
      expiresAt,
      right: macOf(challengeId),
      verify: (codeMac: string, asker?: Omit<VerifyCodeRequest, 'codeMac'>) => handle.executeUpdate(verifyCodeUpdate, { args: [request(codeMac, asker)] }),
      accepted: (codeMac: string) => handle.startUpdate(verifyCodeUpdate, { args: [request(codeMac)], waitForStage: WorkflowUpdateStage.ACCEPTED }),
    };
  }

  test('when the right code is sent, then it is VERIFIED and the code is forgotten, both steps on the emailChallengeStep profile', async () => {
    const { calls, activities } = standIns();
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue);
      expect(await run.verify(run.right)).toBe('VERIFIED');
      expect(await run.handle.result()).toBe('VERIFIED');
      await expectProfiles(run.handle, {
        mailEmailChallengeCode: activityProfiles.emailChallengeStep,
        forgetEmailChallengeCode: activityProfiles.emailChallengeStep,
      });
    });
    expect(calls).toEqual(['mail#1', 'forget']);
  });

  test('when wrong codes are sent, then each counts, the last allowed one exhausts the challenge and even the right code is refused after', async () => {
    const forget = gate();
    const { calls, activities } = standIns({ forgettable: forget.opened });
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue, { maxGuesses: 3 });
      expect(await run.verify('wrong-1')).toBe('WRONG_CODE');
      expect(await run.handle.query(challengeStateQuery)).toEqual({ guesses: 1, outcome: null });
      expect(await run.verify('wrong-2')).toBe('WRONG_CODE');
      expect(await run.verify('wrong-3')).toBe('GUESSES_EXHAUSTED');
      expect(await run.verify(run.right)).toBe('GUESSES_EXHAUSTED');
      expect(await run.handle.query(challengeStateQuery)).toEqual({ guesses: 3, outcome: 'GUESSES_EXHAUSTED' });
      forget.open();
      expect(await run.handle.result()).toBe('GUESSES_EXHAUSTED');
    });
    expect(calls).toEqual(['mail#1', 'forget']);
  });

  test('when its timer runs out unanswered, then it is EXPIRED, a late right code is refused as EXPIRED, and the code is forgotten', async () => {
    const forget = gate();
    const { calls, activities } = standIns({ forgettable: forget.opened });
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue, { expiresInMs: 1000 });
      while ((await run.handle.query(challengeStateQuery)).outcome === null) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(Date.now()).toBeGreaterThanOrEqual(run.expiresAt);
      expect(await run.verify(run.right)).toBe('EXPIRED');
      expect(await run.handle.query(challengeStateQuery)).toEqual({ guesses: 0, outcome: 'EXPIRED' });
      forget.open();
      expect(await run.handle.result()).toBe('EXPIRED');
    });
    expect(calls).toEqual(['mail#1', 'forget']);
  });

  test('when five right codes arrive at once before the code is mailed, then they wait for it and exactly one is VERIFIED', async () => {
    const mailed = gate();
    const mailing = gate();
    const { activities } = standIns({ mailed: mailed.opened, mail: mailing.open });
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue);
      await mailing.opened;
      const updates = await Promise.all(Array.from({ length: 5 }, () => run.accepted(run.right)));
      expect(await run.handle.query(challengeStateQuery)).toEqual({ guesses: 0, outcome: null });
      mailed.open();
      const answers = await Promise.all(updates.map((u) => u.result()));
      expect([...answers].sort()).toEqual(['ALREADY_USED', 'ALREADY_USED', 'ALREADY_USED', 'ALREADY_USED', 'VERIFIED']);
      expect(await run.handle.result()).toBe('VERIFIED');
      expect(await run.handle.query(challengeStateQuery)).toEqual({ guesses: 1, outcome: 'VERIFIED' });
    });
  });

  test('when more wrong codes than allowed arrive at once, then they are counted one at a time and the count stops at the limit', async () => {
    const mailed = gate();
    const mailing = gate();
    const { activities } = standIns({ mailed: mailed.opened, mail: mailing.open });
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue, { maxGuesses: 3 });
      await mailing.opened;
      const updates = await Promise.all(Array.from({ length: 6 }, (_, i) => run.accepted(`wrong-${i}`)));
      mailed.open();
      const answers = await Promise.all(updates.map((u) => u.result()));
      expect([...answers].sort()).toEqual(['GUESSES_EXHAUSTED', 'GUESSES_EXHAUSTED', 'GUESSES_EXHAUSTED', 'GUESSES_EXHAUSTED', 'WRONG_CODE', 'WRONG_CODE']);
      expect(await run.handle.result()).toBe('GUESSES_EXHAUSTED');
      expect(await run.handle.query(challengeStateQuery)).toEqual({ guesses: 3, outcome: 'GUESSES_EXHAUSTED' });
    });
  });

  test('when another login verifies, then the update is refused with ChallengeMismatch, counts nothing, and the owner can still verify', async () => {
    const { activities } = standIns();
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue);
      const stranger = { ...who, identityId: randomUUID() };
      expect(await failureOf(run.verify(run.right, stranger))).toMatchObject({ type: FailureType.ChallengeMismatch, nonRetryable: true });
      expect(await failureOf(run.verify(run.right, { ...who, purpose: 'STEP_UP' }))).toMatchObject({ type: FailureType.ChallengeMismatch });
      expect(await run.handle.query(challengeStateQuery)).toEqual({ guesses: 0, outcome: null });
      expect(await run.verify(run.right)).toBe('VERIFIED');
      expect(await run.handle.result()).toBe('VERIFIED');
    });
  });

  test('when the mail provider is down twice, then the third attempt mails the code and the right code is VERIFIED', async () => {
    const calls: string[] = [];
    const activities: EmailChallengeActivities = {
      mailEmailChallengeCode: async ({ challengeId }) => {
        calls.push(`mail#${activityInfo().attempt}`);
        if (activityInfo().attempt <= 2) throw outage('MailUnavailable');
        return macOf(challengeId);
      },
      forgetEmailChallengeCode: async () => {
        calls.push('forget');
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue);
      expect(await run.verify(run.right)).toBe('VERIFIED');
      expect(await run.handle.result()).toBe('VERIFIED');
    });
    expect(calls).toEqual(['mail#1', 'mail#2', 'mail#3', 'forget']);
  });

  test('when the identity is gone before the code is mailed, then the run fails with that failure after one attempt', async () => {
    const calls: string[] = [];
    const activities: EmailChallengeActivities = {
      mailEmailChallengeCode: async () => {
        calls.push('mail');
        throw ApplicationFailure.nonRetryable('identity no longer exists', 'IdentityGone');
      },
      forgetEmailChallengeCode: async () => {
        calls.push('forget');
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      const run = await start(taskQueue);
      expect(await failureOf(run.handle.result())).toMatchObject({ type: 'IdentityGone', nonRetryable: true });
    });
    expect(calls).toEqual(['mail']);
  });
});
