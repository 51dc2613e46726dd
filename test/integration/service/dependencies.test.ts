import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { createApp } from '../../../api/app';
import { createLogger } from '../../../core/logger';
import { createOutboxMailer } from '../../../adapters/mail';
import { storeOutboxMessage } from '../../../db/repositories/mail/outbox';
import { createSequelize } from '../../../db/connection';
import { initModels } from '../../../db/models';
import { loadTestConfig } from '../../helpers/stack';

// The real app wired to a Temporal address where nothing listens.
const config = loadTestConfig();
const db = createSequelize(config.database.url, { poolMax: 2 });
initModels(db);
const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1s' });
const app = createApp({
  config,
  db,
  temporal: new Client({ connection }),
  logger: createLogger('silent'),
  mailer: createOutboxMailer({ store: (message) => storeOutboxMessage(db, message) }),
});

afterAll(async () => {
  await connection.close().catch(() => undefined);
  await db.close();
});

describe('when Temporal is unreachable', () => {
  test('GET /readyz answers 503 naming the failing dependency', async () => {
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body).toEqual({ status: 'NOT_READY', checks: { postgres: 'UP', temporal: 'DOWN' } });
  });

  test('an operation that starts a workflow answers 503 dependency-unavailable, not 500', async () => {
    const res = await request(app).post('/api/v1/auth/magic-link/request').send({ email: 'someone@example.com' });
    expect(res.status).toBe(503);
    expect(res.body.type).toBe('/problems/dependency-unavailable');
  });
});
