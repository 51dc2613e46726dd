import { ConnectionError } from 'sequelize';

// When the database, not the request, is at fault: the server is shutting down or restarting, or the
// connection was lost. Such a failure is a 503 with Retry-After for the client, never a 500, and changes
// nothing (the transaction did not commit).

/** SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, crash, starting up). */
const UNAVAILABLE_STATE = /^(08|57P0[1-3])/;
/** node-postgres's own words for a connection that broke under a query (it has no SQLSTATE for these). */
const BROKEN_CONNECTION = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|ECONNRESET|ECONNREFUSED/;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ConnectionError) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_STATE.test(code)) return true;
    if (typeof message === 'string' && BROKEN_CONNECTION.test(message)) return true;
    const next = (e as { original?: unknown; parent?: unknown; cause?: unknown });
    e = next.original ?? next.parent ?? next.cause;
  }
  return false;
}
