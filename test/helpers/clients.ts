import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { TestStack } from './stack';

export const PASSWORD = 'correct horse battery staple';

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
}

export function api(stack: TestStack) {
  return request(stack.app);
}

export interface DevMail {
  to: string;
  subject: string;
  text: string;
  messageId: string;
  sentAt: string;
}

export async function readMail(stack: TestStack, to: string): Promise<DevMail[]> {
  const res = await api(stack).get('/dev/mail').query({ to }).expect(200);
  return res.body as DevMail[];
}

/** Polls the development outbox until `count` messages reached the address. */
export async function waitForMail(stack: TestStack, to: string, count = 1, timeoutMs = 15000): Promise<DevMail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = await readMail(stack, to);
    if (mail.length >= count) return mail;
    if (Date.now() > deadline) throw new Error(`expected ${count} mail(s) to ${to}, got ${mail.length}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function magicLinkTokenFrom(mail: DevMail): string {
  const match = /token=([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!match) throw new Error('no magic link in mail');
  return match[1];
}

/**
 * Waits for the invitation mail to `email` (the `count`th mail to it) and reads its `invitation=<token>`:
 * the token that proves the mailbox, with which a person without an identity joins.
 */
export async function mailedInvitationToken(stack: TestStack, email: string, count = 1): Promise<string> {
  const mail = await waitForMail(stack, email, count);
  const token = mail.map((m) => /invitation=([A-Za-z0-9_-]{43})/.exec(m.text)?.[1]).find((t) => t !== undefined);
  if (!token) throw new Error(`no invitation link in the mail to ${email}`);
  return token;
}

/** POST magic-link/request and read the magic link's token from the newest mail. */
export async function requestMagicLink(stack: TestStack, email: string): Promise<string> {
  const before = (await readMail(stack, email)).length;
  await api(stack).post('/api/v1/auth/magic-link/request').send({ email }).expect(202);
  const mail = await waitForMail(stack, email, before + 1);
  return magicLinkTokenFrom(mail[0]);
}

export interface Registered {
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  me: {
    userId: string;
    globalUserId: string;
    membershipId: string;
    tenantId: string;
    roles: string[];
    company: { id: string; name: string | null; taxId: string | null; onboardingComplete: boolean; slug: string };
  };
}

export async function registerWorkspace(
  stack: TestStack,
  options: { email?: string; password?: string; company?: { name: string; taxId: string } | null } = {},
): Promise<Registered> {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? PASSWORD;
  const token = await requestMagicLink(stack, email);
  const company = options.company === undefined ? { name: `Firm ${randomUUID().slice(0, 6)}`, taxId: '123456789' } : options.company;
  const body: Record<string, unknown> = { token, email, password, confirmPassword: password };
  if (company) body.company = company;
  const res = await api(stack).post('/api/v1/auth/register').send(body);
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${JSON.stringify(res.body)}`);
  const me = await api(stack).get('/api/v1/me').set('Authorization', `Bearer ${res.body.accessToken}`).expect(200);
  return { email, password, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken, me: me.body };
}

export function bearer(token: string): [string, string] {
  return ['Authorization', `Bearer ${token}`];
}
