import { ConnectionRefusedError, DatabaseError, UniqueConstraintError } from 'sequelize';
import { isDatabaseUnavailable } from '../../../db/unavailable';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('a database failure that is the database\'s, not the request\'s', () => {
  test.each([
    ['a refused connection', new ConnectionRefusedError(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))],
    ['a shutdown under a query (57P01)', new DatabaseError(pgError('57P01', 'terminating connection due to administrator command') as never)],
    ['a server still starting (57P03)', new DatabaseError(pgError('57P03', 'the database system is starting up') as never)],
    ['a connection exception (08006)', new DatabaseError(pgError('08006', 'connection failure') as never)],
    ['a connection broken under a query', new Error('Connection terminated unexpectedly')],
    ['a client that lost its connection', new Error('Client has encountered a connection error and is not queryable')],
  ])('%s is unavailability (503)', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  test.each([
    ['a unique violation', new UniqueConstraintError({})],
    ['a check violation (23514)', new DatabaseError(pgError('23514', 'new row violates check constraint') as never)],
    ['a syntax error (42601)', new DatabaseError(pgError('42601', 'syntax error') as never)],
    ['a plain bug', new TypeError('undefined is not a function')],
  ])('%s is not (it stays a 4xx or a 500 with a support reference)', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
