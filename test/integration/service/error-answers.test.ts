import request from 'supertest';
import type { Express } from 'express';
import { createPasswordHasher, type PasswordHasher } from '../../../core/identity/passwords';
import { AppError } from '../../../core/shared/problems';
import type { OpenApiDocument } from '../../../contracts/operations';
import type { Logger } from '../../../runtime/logger';
import { anotherApp, startTestStack, type TestStack } from '../../helpers/stack';
import { registerWorkspace, type Registered } from '../../helpers/clients';

// Every error that reaches the end of the chain is an application/problem+json document, in development too
// (where responses are validated against the document and Express would otherwise render its HTML error page
// with the stack): an error of a status the operation does not declare, a request the validator refuses with
// such a status, an answer that fails response validation, and an error nobody expected.

let stack: TestStack;
let user: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  user = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

/** An app as `npm start` runs it: development, responses validated against the document. */
function developmentApp(overrides: { hasher?: PasswordHasher; doc?: OpenApiDocument; logger?: Logger } = {}): Express {
  return anotherApp(stack, { config: { ...stack.config, env: 'development', validateResponses: true }, ...overrides });
}

function expectProblem(res: request.Response, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.text).not.toMatch(/<html|<!DOCTYPE|<pre>|\bat [A-Za-z.<>]+ \(/i);
  expect(res.body).toMatchObject({ type, status, title: expect.any(String), instance: expect.stringMatching(/^urn:uuid:/) });
}

/** A hasher whose password check fails as given (the rest is the real one). */
function failingHasher(error: () => Error): PasswordHasher {
  const real = createPasswordHasher({ memoryKib: stack.config.passwords.argon2MemoryKib, timeCost: stack.config.passwords.argon2TimeCost });
  return { ...real, verify: async () => Promise.reject(error()) };
}

describe('every error answers a problem document, never an HTML page', () => {
  test('when a problem has a status the operation does not declare, then it is still a problem document (not Express\'s HTML page)', async () => {
    const app = developmentApp({ hasher: failingHasher(() => new AppError('conflict', 'a state the login does not declare')) });
    const res = await request(app).post('/api/v1/auth/login').send({ email: user.email, password: user.password });
    expectProblem(res, 409, '/problems/conflict');
  });

  test('when the validator refuses a request with a status the operation does not declare, then the answer is that problem', async () => {
    // GET /api/v1 and /healthz declare 200 only; an unknown query parameter is a 400 of the validator's.
    for (const path of ['/api/v1?unexpected=1', '/healthz?unexpected=1']) {
      const res = await request(developmentApp()).get(path);
      expectProblem(res, 400, '/problems/validation');
      expect(res.body.errors).toEqual([expect.objectContaining({ path: expect.stringContaining('unexpected') })]);
    }
  });

  test('when an answer fails response validation, then it is a 500 problem with a support reference', async () => {
    const doc = structuredClone(stack.doc) as OpenApiDocument & { components: { schemas: Record<string, { required: string[] }> } };
    doc.components.schemas.ApiIndex!.required.push('missingMember');
    const res = await request(developmentApp({ doc })).get('/api/v1');
    expectProblem(res, 500, '/problems/internal');
    expect(res.body.supportReference).toEqual(expect.any(String));
  });

  test('when something nobody expected fails, then it is a 500 problem with a support reference and nothing internal', async () => {
    const res = await request(developmentApp({ hasher: failingHasher(() => new Error('the database exploded in /srv/secret/path')) }))
      .post('/api/v1/auth/login').send({ email: user.email, password: user.password });
    expectProblem(res, 500, '/problems/internal');
    expect(res.text).not.toContain('exploded');
    expect(res.text).not.toContain('/srv/secret');
  });

  test('when the error handler itself fails (here: the log line of a 500 throws), then the last resort still answers a 500 problem document', async () => {
    const throwing: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => {
        throw new Error('the log is gone');
      },
      child: () => throwing,
    };
    const res = await request(developmentApp({ logger: throwing, hasher: failingHasher(() => new Error('unexpected')) }))
      .post('/api/v1/auth/login').send({ email: user.email, password: user.password });
    expectProblem(res, 500, '/problems/internal');
    expect(res.text).not.toContain('the log is gone');
  });
});
