import { timeStep, totpAt } from '../../core/identity/totp';
import { api, bearer, readMail, waitForMail, type DevMail, type Registered } from './clients';
import type { TestStack } from './stack';

/** The authenticator code for the step `offset` steps from now. */
export function totpCode(secret: string, offset = 0): string {
  return totpAt(secret, timeStep(Date.now()) + offset);
}

/** "a second-factor mail's text contains the code as its only 8-digit number". */
export function codeFrom(mail: DevMail): string {
  const codes = mail.text.match(/\b[0-9]{8}\b/g) ?? [];
  if (codes.length !== 1) throw new Error(`expected exactly one 8-digit code in the mail, found ${codes.length}`);
  return codes[0]!;
}

/**
 * A second-factor code mail, told by its sentence. The link mails carry the recipient's address (whose
 * generated local part can be eight digits), so an eight-digit number alone does not make a code mail.
 */
export function isCodeMail(mail: DevMail): boolean {
  return /^Your verification code is [0-9]{8}\./.test(mail.text);
}

/** Waits for the next mail to the address after `before` mails, and returns its code. */
export async function nextCode(stack: TestStack, email: string, before: number): Promise<string> {
  const mail = await waitForMail(stack, email, before + 1);
  return codeFrom(mail[0]!);
}

export async function mailCount(stack: TestStack, email: string): Promise<number> {
  return (await readMail(stack, email)).length;
}

export interface TotpUser {
  secret: string;
  recoveryCodes: string[];
}

/** Sets up and confirms an authenticator for the user (a successful confirmation uses no factor attempt). */
export async function enableTotp(stack: TestStack, user: Registered): Promise<TotpUser> {
  const setup = await api(stack)
    .post('/api/v1/me/security/totp/setup')
    .set(...bearer(user.accessToken))
    .send({ currentPassword: user.password })
    .expect(201);
  const confirm = await api(stack)
    .post('/api/v1/me/security/totp/confirm')
    .set(...bearer(user.accessToken))
    .send({ currentPassword: user.password, enrollmentId: setup.body.enrollmentId, code: totpCode(setup.body.secret) })
    .expect(200);
  return { secret: setup.body.secret, recoveryCodes: confirm.body.recoveryCodes };
}

/** Turns email sign-in codes on through the challenge and confirmation operations. */
export async function enableEmailFactor(stack: TestStack, user: Registered): Promise<void> {
  const before = await mailCount(stack, user.email);
  const challenge = await api(stack)
    .post('/api/v1/me/security/email-factor/challenge')
    .set(...bearer(user.accessToken))
    .send({ currentPassword: user.password, purpose: 'ENABLE' })
    .expect(202);
  const code = await nextCode(stack, user.email, before);
  await api(stack)
    .post('/api/v1/me/security/email-factor/confirm')
    .set(...bearer(user.accessToken))
    .send({ currentPassword: user.password, challengeId: challenge.body.challengeId, code })
    .expect(200);
}

export function login(stack: TestStack, body: Record<string, unknown>) {
  return api(stack).post('/api/v1/auth/login').send(body);
}
