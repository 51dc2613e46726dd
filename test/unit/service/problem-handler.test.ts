import express from 'express';
import request from 'supertest';
import { problemHandler } from '../../../api/middleware/problems';
import { requestContext } from '../../../api/middleware/request-context';
import { createLogger } from '../../../runtime/logger';
import { AppError } from '../../../core/shared/problems';

function appThrowing(err: unknown, lines: string[]) {
  const app = express();
  app.use(requestContext(createLogger('info', {}, (l) => lines.push(l)), 'localhost'));
  app.get('/boom', () => {
    throw err;
  });
  app.use(problemHandler);
  return app;
}

describe('problemHandler', () => {
  test('when an unexpected error escapes, then 500 with a support reference that is also in the log, and no internals', async () => {
    const lines: string[] = [];
    const err = new Error('duplicate key value violates unique constraint "identities_email_key" SELECT * FROM identities');
    const res = await request(appThrowing(err, lines)).get('/boom').expect(500);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/internal', status: 500, supportReference: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/SELECT|identities|constraint|at .*\.ts/);
    expect(lines.some((l) => l.includes(res.body.supportReference) && l.includes('"level":"error"'))).toBe(true);
  });

  test('when an AppError is thrown, then its problem type, status, detail, extensions and headers', async () => {
    const err = new AppError('too-many-attempts', 'Wait a little', { limit: 5 }, { 'Retry-After': '42' });
    const res = await request(appThrowing(err, [])).get('/boom').expect(429);
    expect(res.headers['retry-after']).toBe('42');
    expect(res.body).toMatchObject({ type: '/problems/too-many-attempts', status: 429, detail: 'Wait a little', limit: 5 });
  });
});

describe('logger', () => {
  test('fields that name secrets are redacted whatever the caller passes', () => {
    const lines: string[] = [];
    createLogger('info', {}, (l) => lines.push(l)).info('x', { password: 'hunter2', refreshToken: 'abc', codeHash: 'h', email: 'a@b.co', status: 200 });
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ password: '[redacted]', refreshToken: '[redacted]', codeHash: '[redacted]', email: 'a@b.co', status: 200 });
  });
});
