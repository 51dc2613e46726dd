import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFcmPushSender } from '../../../adapters/push';
import { PushRejected, PushUnavailable, platformOf, settledState, type PushNotification } from '../../../core/notifications/push';
import { startFakeFcm, type FakeFcm } from '../../helpers/fake-fcm';

// The FCM HTTP v1 adapter against a local fake of Google's token endpoint and FCM (no internet).

let fcm: FakeFcm;
beforeAll(async () => {
  fcm = await startFakeFcm();
});
afterAll(async () => {
  await fcm.close();
});

const sender = () => createFcmPushSender({ serviceAccount: fcm.serviceAccount, endpoint: fcm.endpoint, timeoutMs: 2000 });
const note = (token: string): PushNotification => ({ token, title: 'Hello', body: 'World', clickPath: '/invoices/7', messageId: 'm-1', deliveryKey: 'm-1:d-1' });

describe('FCM HTTP v1 adapter', () => {
  test('exchanges a signed service-account assertion for an access token once, then sends with it', async () => {
    const push = sender();
    const exchanges = fcm.tokenExchanges;
    expect(await push.send(note('device-token-aaaaaaaaaaaaaaaa'))).toEqual({ outcome: 'SENT', providerMessageId: expect.stringMatching(/^projects\/demo-accounting\/messages\//) });
    expect(await push.send(note('device-token-bbbbbbbbbbbbbbbb'))).toMatchObject({ outcome: 'SENT' });
    expect(fcm.tokenExchanges - exchanges).toBe(1);
    expect(fcm.accepted.at(-1)).toEqual({ token: 'device-token-bbbbbbbbbbbbbbbb', title: 'Hello', body: 'World', data: { messageId: 'm-1', clickPath: '/invoices/7' } });
  });

  test('UNREGISTERED (404) is the outcome that removes the device', async () => {
    expect(await sender().send(note('unregistered-device-token-1'))).toEqual({ outcome: 'UNREGISTERED' });
  });

  test('503 UNAVAILABLE is retryable; 400 INVALID_ARGUMENT is not', async () => {
    await expect(sender().send(note('unavailable-device-token-1'))).rejects.toThrow(PushUnavailable);
    await expect(sender().send(note('unavailable-device-token-1'))).rejects.toThrow('FCM answered HTTP 503 UNAVAILABLE');
    await expect(sender().send(note('invalid-device-token-12345'))).rejects.toThrow(PushRejected);
  });

  test('an access token FCM stops accepting (401) is renewed once and the send goes through', async () => {
    const push = sender();
    await push.send(note('device-token-cccccccccccccccc'));
    const exchanges = fcm.tokenExchanges;
    fcm.revokeAccessToken();
    expect(await push.send(note('device-token-dddddddddddddddd'))).toMatchObject({ outcome: 'SENT' });
    expect(fcm.tokenExchanges - exchanges).toBe(1);
  });

  test('a refused service account (400 invalid_grant) is not retryable; a token endpoint outage is', async () => {
    fcm.failTokenExchange(400);
    await expect(sender().send(note('device-token-eeeeeeeeeeeeeeee'))).rejects.toThrow(PushRejected);
    fcm.failTokenExchange(503);
    await expect(sender().send(note('device-token-eeeeeeeeeeeeeeee'))).rejects.toThrow(PushUnavailable);
    fcm.failTokenExchange(200);
  });

  test('an unreachable FCM is retryable', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const closed = `http://127.0.0.1:${port}`;
    const push = createFcmPushSender({ serviceAccount: { ...fcm.serviceAccount, token_uri: `${closed}/token` }, endpoint: closed, timeoutMs: 2000 });
    await expect(push.send(note('device-token-ffffffffffffffff'))).rejects.toThrow(/FCM token exchange: ECONNREFUSED/);
  });
});

describe('push rules', () => {
  test.each([
    [{ SENT: 3 }, 'DELIVERED'],
    [{ SENT: 2, INVALID_TOKEN: 1 }, 'PARTIAL'],
    [{ SENT: 1, FAILED: 1 }, 'PARTIAL'],
    [{ FAILED: 2 }, 'FAILED'],
    [{}, 'FAILED'],
  ])('deliveries %o settle the message %s', (counts, state) => {
    expect(settledState(counts)).toBe(state);
  });

  test.each([
    ['okhttp/4.12.0 (Android 14)', 'ANDROID'],
    ['Dalvik/2.1.0 (Linux; U; Android 13; SM-S911B)', 'ANDROID'],
    ['Accounting/3.0 CFNetwork/1490.0.4 Darwin/23.2.0', 'IOS'],
    ['Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X)', 'IOS'],
    ['Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0', 'WEB'],
    ['', 'UNKNOWN'],
    [null, 'UNKNOWN'],
  ])('User-Agent %j is %s', (ua, platform) => {
    expect(platformOf(ua)).toBe(platform);
  });
});
