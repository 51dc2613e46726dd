import { randomUUID } from 'node:crypto';
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { activityProfiles } from '../../../contracts/activity-profiles';
import { FailureType } from '../../../contracts/failures';
import {
  ACCEPT_INVITATION_WORKFLOW,
  MAIL_INVITATION_WORKFLOW,
  type AcceptInvitationActivities,
  type AcceptInvitationInput,
  type AcceptInvitationWorkflow,
  type MailInvitationActivities,
  type MailInvitationInput,
  type MailInvitationWorkflow,
} from '../../../contracts/organisation';
import { acceptInvitationWorkflowId, mailInvitationWorkflowId } from '../../../contracts/workflow-ids';
import { expectProfiles, failureOf, outage, SETUP_TIMEOUT_MS, startWorkflowEnvironment, type WorkflowTestEnvironment } from './environment';

let t: WorkflowTestEnvironment;
beforeAll(async () => {
  t = await startWorkflowEnvironment();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t?.teardown();
});

describe('mailInvitationWorkflow', () => {
  const start = (taskQueue: string, input: MailInvitationInput) =>
    t.client.workflow.start<MailInvitationWorkflow>(MAIL_INVITATION_WORKFLOW, { taskQueue, workflowId: mailInvitationWorkflowId(input.invitationId), args: [input] });
  const invitation = (): MailInvitationInput => ({ tenantId: randomUUID(), invitationId: randomUUID(), correlationId: randomUUID(), auditEventId: randomUUID() });

  test('when the invitation is mailed, then the run hands the activity its input and answers mailed, on the invitationMail profile', async () => {
    const seen: MailInvitationInput[] = [];
    const activities: MailInvitationActivities = {
      mailInvitation: async (input) => {
        seen.push(input);
        return { mailed: true };
      },
    };
    const input = invitation();
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      expect(await handle.result()).toEqual({ mailed: true });
      await expectProfiles(handle, { mailInvitation: activityProfiles.invitationMail });
    });
    expect(seen).toEqual([input]);
  });

  test('when the mail provider is down twice, then the third attempt mails the invitation', async () => {
    const attempts: number[] = [];
    const activities: MailInvitationActivities = {
      mailInvitation: async () => {
        attempts.push(activityInfo().attempt);
        if (activityInfo().attempt <= 2) throw outage('MailUnavailable');
        return { mailed: true };
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, invitation())).result()).toEqual({ mailed: true });
    });
    expect(attempts).toEqual([1, 2, 3]);
  });

  test('when the provider refuses the mail for good, then the run fails with MailRejected after one attempt', async () => {
    let attempts = 0;
    const activities: MailInvitationActivities = {
      mailInvitation: async () => {
        attempts += 1;
        throw ApplicationFailure.create({ type: FailureType.MailRejected, message: 'the address was refused', nonRetryable: true });
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      expect(await failureOf((await start(taskQueue, invitation())).result())).toMatchObject({ type: FailureType.MailRejected, nonRetryable: true });
    });
    expect(attempts).toBe(1);
  });
});

describe('acceptInvitationWorkflow', () => {
  const acceptance = (): AcceptInvitationInput => ({ tenantId: randomUUID(), invitationId: randomUUID(), acceptanceId: randomUUID(), correlationId: randomUUID() });
  const start = (taskQueue: string, input: AcceptInvitationInput) =>
    t.client.workflow.start<AcceptInvitationWorkflow>(ACCEPT_INVITATION_WORKFLOW, { taskQueue, workflowId: acceptInvitationWorkflowId(input.invitationId), args: [input] });

  test('when the invitation is accepted, then the run answers the membership, on the awaitedTransaction profile', async () => {
    const input = acceptance();
    const membership = { tenantId: input.tenantId, identityId: randomUUID(), membershipId: randomUUID() };
    const seen: AcceptInvitationInput[] = [];
    const activities: AcceptInvitationActivities = {
      acceptInvitation: async (received) => {
        seen.push(received);
        return membership;
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      expect(await handle.result()).toEqual(membership);
      await expectProfiles(handle, { acceptInvitation: activityProfiles.awaitedTransaction });
    });
    expect(seen).toEqual([input]);
  });

  test('when the database fails twice, then the third attempt accepts the invitation', async () => {
    const input = acceptance();
    const attempts: number[] = [];
    const activities: AcceptInvitationActivities = {
      acceptInvitation: async () => {
        attempts.push(activityInfo().attempt);
        if (activityInfo().attempt <= 2) throw outage('DatabaseUnavailable');
        return { tenantId: input.tenantId, identityId: 'identity', membershipId: 'membership' };
      },
    };
    await t.withWorker(activities, async (taskQueue) => {
      expect(await (await start(taskQueue, input)).result()).toMatchObject({ membershipId: 'membership' });
    });
    expect(attempts).toEqual([1, 2, 3]);
  });

  test.each([FailureType.InvitationInvalid, FailureType.InvalidCredentials])(
    'when the activity refuses with %s, then the run fails with that type after one attempt',
    async (type) => {
      let attempts = 0;
      const activities: AcceptInvitationActivities = {
        acceptInvitation: async () => {
          attempts += 1;
          throw ApplicationFailure.create({ type, message: 'refused', nonRetryable: true });
        },
      };
      await t.withWorker(activities, async (taskQueue) => {
        expect(await failureOf((await start(taskQueue, acceptance())).result())).toMatchObject({ type, nonRetryable: true });
      });
      expect(attempts).toBe(1);
    },
  );
});
