import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { createApp } from '../../../api/app';
import { createLogger } from '../../../runtime/logger';
import { createOutboxMailer } from '../../../adapters/mail';
import { storeOutboxMessage } from '../../../db/repositories/mail/outbox';
import { openDatabase } from '../../../db/open';
import { loadTestConfig } from '../../helpers/stack';

// The real app wired to a Temporal address where nothing listens.
const config = loadTestConfig();
const db = openDatabase(config.database.url, { poolMax: 2 });
const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1s' });
const app = createApp({
  config,
  db,
  temporal: new Client({ connection }),
  logger: createLogger('silent'),
  mailer: createOutboxMailer({ store: (message) => storeOutboxMessage(db, message) }),
});

// The pool holds an open connection before the probe runs: what is measured is Temporal's absence, not
// how long a first connection takes on a loaded machine.
beforeAll(async () => {
  await db.query('SELECT 1');
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

  test('an operation that starts a workflow still answers (202): its start is recorded for the relay, not lost', async () => {
    const email = `outage-${randomUUID()}@example.com`;
    const res = await request(app).post('/api/v1/auth/magic-link/request').send({ email });
    expect(res.status).toBe(202);
    const rows = await db.query<{ attempts: number; started_at: Date | null }>(
      `SELECT attempts, started_at FROM workflow_starts WHERE workflow_type = 'requestMagicLinkWorkflow' AND args->0->>'email' = :email`,
      { replacements: { email }, type: QueryTypes.SELECT },
    );
    expect(rows).toEqual([{ attempts: 1, started_at: null }]);
  });
});
