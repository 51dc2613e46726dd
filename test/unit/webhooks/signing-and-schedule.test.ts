import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { DEFAULT_RETRY_INTERVALS_MS, retryDelayMs, signedHeaders, webhookBody } from '../../../core/webhooks/webhooks';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('signed webhook headers (Standard Webhooks)', () => {
  const body = webhookBody({ type: 'journal-entry.posted', occurredAt: new Date('2026-11-25T08:00:00Z'), tenantId: randomUUID(), data: { entryId: randomUUID(), number: 7 } });

  test('when a receiver verifies with the endpoint secret, then the delivery passes and reads as the event', () => {
    const secret = newSecret();
    const eventId = randomUUID();
    const headers = signedHeaders({ eventId, timestamp: new Date(), body, secrets: [secret] });
    expect(headers['webhook-id']).toBe(eventId);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'journal-entry.posted', data: { number: 7 } });
  });

  test('when the body is changed by one character, then verification fails', () => {
    const secret = newSecret();
    const headers = signedHeaders({ eventId: randomUUID(), timestamp: new Date(), body, secrets: [secret] });
    expect(() => new Webhook(secret).verify(body.replace('"number":7', '"number":8'), headers)).toThrow(WebhookVerificationError);
  });

  test('when the timestamp is older than the receiver tolerates (five minutes), then verification fails', () => {
    const secret = newSecret();
    const headers = signedHeaders({ eventId: randomUUID(), timestamp: new Date(Date.now() - 6 * 60_000), body, secrets: [secret] });
    expect(() => new Webhook(secret).verify(body, headers)).toThrow(/too old/i);
  });

  test('when the id or timestamp header is changed, or another secret verifies, then verification fails', () => {
    const secret = newSecret();
    const headers = signedHeaders({ eventId: randomUUID(), timestamp: new Date(), body, secrets: [secret] });
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': randomUUID() })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  test('when a rotated secret still overlaps, then both sign (current first) and a receiver with either verifies', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const headers = signedHeaders({ eventId: randomUUID(), timestamp: new Date(), body, secrets: [current, previous] });
    const signatures = headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(new Webhook(current).sign(headers['webhook-id']!, new Date(Number(headers['webhook-timestamp']) * 1000), body));
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
  });
});

describe('the retry schedule', () => {
  const schedule = { intervalsMs: DEFAULT_RETRY_INTERVALS_MS, windowMs: 24 * 3_600_000 };

  /** The times (ms after the first) at which a delivery that always fails is attempted. */
  function attemptTimes(s: { intervalsMs: readonly number[]; windowMs: number }): number[] {
    const times = [0];
    for (let attempt = 1; ; attempt++) {
      const delay = retryDelayMs(attempt, times[times.length - 1]!, s);
      if (delay === null) return times;
      times.push(times[times.length - 1]! + delay);
    }
  }

  test('when a delivery keeps failing, then it waits 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, then every 4 h', () => {
    const times = attemptTimes(schedule);
    const waits = times.slice(1).map((t, i) => t - times[i]!);
    expect(waits.slice(0, 9)).toEqual([10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 14_400_000]);
  });

  test('when the window is 24 hours, then the last attempt falls exactly on its end and nothing follows: tried for 24 hours, never less', () => {
    const times = attemptTimes(schedule);
    expect(times[times.length - 1]).toBe(schedule.windowMs);
    expect(times).toHaveLength(14);
    expect(retryDelayMs(times.length, schedule.windowMs, schedule)).toBeNull();
  });

  test('when an attempt ends after the window (a slow attempt), then the delivery fails without another wait', () => {
    expect(retryDelayMs(3, schedule.windowMs + 5000, schedule)).toBeNull();
  });
});
