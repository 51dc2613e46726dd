import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';

// Structured JSON logs, one line per event, through pino: written asynchronously to stdout (flushed on
// exit), so an access-log line never holds up a request. Callers pass fields;
// secrets are never passed in, and field names that look like secrets are redacted anyway. For a person at
// a terminal (development), the same events go through pino-pretty's transport (a worker thread) as text;
// redaction happens before either.


export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

// Field names that must never reach a log line, whatever a caller passes.
const REDACTED = /pass(word)?|token|secret|code|hash|authorization|cookie/i;

function scrub(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = REDACTED.test(key) && key !== 'statusCode' ? '[redacted]' : value;
  }
  return out;
}

function wrap(log: PinoLogger): Logger {
  return {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
    child: (fields) => wrap(log.child(scrub(fields))),
  };
}

let stdout: ReturnType<typeof pino.destination> | null = null;
/** One buffered stdout destination per process, flushed when the process exits. */
function stdoutDestination(): DestinationStream {
  if (!stdout) {
    const destination = pino.destination({ dest: 1, sync: false });
    process.once('exit', () => destination.flushSync());
    stdout = destination;
  }
  return stdout;
}

let pretty: DestinationStream | null = null;
/** pino-pretty in a worker thread: coloured, one line per event, with its fields below it. */
function prettyDestination(): DestinationStream {
  pretty ??= pino.transport({ target: 'pino-pretty', options: { destination: 1, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', messageFormat: '{service}: {msg}', singleLine: true } });
  return pretty!;
}

/**
 * `write`, when given, receives each line synchronously (tests, the secret scan); otherwise lines go to
 * stdout asynchronously. Fields: time (ISO 8601), level (its name), msg, the base fields, then the call's.
 */
export function createLogger(
  level: LogLevel | 'silent',
  base: LogFields = {},
  write?: (line: string) => void,
  format: 'json' | 'pretty' = 'json',
): Logger {
  const destination: DestinationStream = write
    ? { write: (line: string) => write(line.replace(/\n$/, '')) }
    : format === 'pretty'
      ? prettyDestination()
      : stdoutDestination();
  const log = pino(
    {
      level,
      base: scrub(base),
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: (fields) => scrub(fields) },
    },
    destination,
  );
  return wrap(log);
}
