import { startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace } from '../../helpers/clients';
import { addMember } from '../../helpers/members';
import { webhooksApi } from '../../helpers/webhook-endpoints';
import { WEBHOOK_EVENT_TYPES } from '../../../contracts/webhooks';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('listWebhookEventTypes (GET /api/v1/webhooks/event-types)', () => {
  test('when any member asks, then every event type is listed with its description and the name of its payload schema in the document', async () => {
    const admin = await registerWorkspace(stack);
    const viewer = await addMember(stack, admin.me.tenantId, ['VIEWER']);
    const res = await webhooksApi(stack, viewer).eventTypes().expect(200);
    expect(res.body.map((t: { type: string }) => t.type)).toEqual([...WEBHOOK_EVENT_TYPES]);
    const schemas = stack.doc.components as { schemas: Record<string, { description?: string; 'x-webhook-event-type'?: string; allOf?: unknown[] }> };
    for (const item of res.body as Array<{ type: string; description: string; schema: string }>) {
      const schema = schemas.schemas[item.schema];
      expect({ type: item.type, declares: schema?.['x-webhook-event-type'], envelope: schema?.allOf?.[0] }).toEqual({
        type: item.type,
        declares: item.type,
        envelope: { $ref: '#/components/schemas/WebhookEvent' },
      });
      expect(item.description).toBe(schema!.description);
      expect(item.description.length).toBeGreaterThan(10);
    }
    expect(res.body.find((t: { type: string }) => t.type === 'journal-entry.posted')).toEqual({
      type: 'journal-entry.posted',
      description: 'A journal entry was posted (postJournalEntry)',
      schema: 'WebhookJournalEntryPosted',
    });
  });
});
