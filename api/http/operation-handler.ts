import type { Writable } from 'node:stream';
import type { components, operations } from '../../contracts/openapi';
import type { OperationId } from '../../contracts/operations';
import type { Principal, RequestContext } from './context';

// What a handler is: one function per operation id, typed from the OpenAPI document. A handler declares
// whether it serves the public or a signed-in member; the mount refuses to start when that disagrees with
// the document's security, so no handler can run without the principal its operation needs.

export type Schemas = components['schemas'];
type Operation<K extends OperationId> = operations[K];

type Defined<T> = [Exclude<T, undefined>] extends [never] ? Record<string, never> : Exclude<T, undefined>;
export type PathParams<K extends OperationId> = Defined<Operation<K>['parameters']['path']>;
export type QueryParams<K extends OperationId> = Defined<Operation<K>['parameters']['query']>;
export type RequestBody<K extends OperationId> = Operation<K> extends { requestBody: { content: { 'application/json': infer B } } } ? B : undefined;

type Responses<K extends OperationId> = Operation<K>['responses'];
/** Statuses a handler answers itself: those documented with JSON (not problem) content, or no content below 300. */
type ReplyStatus<K extends OperationId> = {
  [S in keyof Responses<K>]: Responses<K>[S] extends { content: { 'application/json': unknown } }
    ? S
    : Responses<K>[S] extends { content: { 'text/plain': unknown } }
      ? S
      : S extends 200 | 201 | 202 | 204
        ? S
        : never;
}[keyof Responses<K>];
/** JSON, or text for the few plain-text answers (sent as is, with the Content-Type the handler sets). */
type ReplyBody<R> = R extends { content: { 'application/json': infer B } } ? B : R extends { content: { 'text/plain': infer T } } ? T : undefined;

/** The media types of the operation's 200 answer, as the document lists them. */
type AnswerType<K extends OperationId> = Responses<K> extends { 200: { content: infer C } } ? Extract<keyof C, string> : never;
/** The types a handler writes as a stream (the exports): every type of its 200 answer but JSON. */
type StreamType<K extends OperationId> = Exclude<AnswerType<K>, 'application/json'>;

/**
 * A 200 answer written while it is produced (an export): the HTTP layer sends the headers, with the body offered
 * as a download (`Content-Disposition: attachment`), and hands `stream` the response. Whatever can refuse the
 * request (the company, the account, the range) is checked before the handler returns this, so a refusal is a
 * problem document; a failure once the body has started aborts the connection, so a client never takes a cut
 * export for a whole one.
 */
export interface StreamReply<T extends string = string> {
  status: 200;
  contentType: T;
  /** The download's file name, with its extension. */
  filename: string;
  /** Writes the whole body to `out` and ends it; resolves when `out` has finished. */
  stream(out: Writable): Promise<void>;
}

export type Reply<K extends OperationId> =
  | {
      [S in ReplyStatus<K>]: ReplyBody<Responses<K>[S]> extends undefined
        ? { status: S; body?: undefined; headers?: Record<string, string> }
        : { status: S; body: ReplyBody<Responses<K>[S]>; headers?: Record<string, string> };
    }[ReplyStatus<K>]
  | ([StreamType<K>] extends [never] ? never : StreamReply<StreamType<K>>);

export interface OperationInput<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  ctx: RequestContext;
  /**
   * The type of the 200 answer the client takes: where the document offers several, the one its Accept header
   * prefers (the first offered when it sends none; 406 before the handler when it takes none); else the one.
   */
  mediaType: AnswerType<K>;
  /** The JSON body exactly as sent, for rules floats cannot decide (decimal places). */
  rawBody(): string;
  /** The Content-Type header as sent (a file's body is read by its type), or null. */
  contentType: string | null;
}

export type MemberInput<K extends OperationId> = OperationInput<K> & { principal: Principal };

export type PublicHandler<K extends OperationId> = {
  access: 'public';
  handle(input: OperationInput<K>): Promise<Reply<K>> | Reply<K>;
};
export type MemberHandler<K extends OperationId> = {
  access: 'member';
  handle(input: MemberInput<K>): Promise<Reply<K>> | Reply<K>;
};
/** A provider callback: it runs only after the callback guard accepted the host and the shared token. */
export type CallbackHandler<K extends OperationId> = {
  access: 'callback';
  handle(input: OperationInput<K>): Promise<Reply<K>> | Reply<K>;
};
export type OperationHandler<K extends OperationId> = PublicHandler<K> | MemberHandler<K> | CallbackHandler<K>;

/** One handler per operation id of the document: a missing one is a type error and a start-up error. */
export type OperationHandlers = { [K in OperationId]: OperationHandler<K> };
export type HandlersOf<K extends OperationId> = Pick<OperationHandlers, K>;

/** A handler of an operation the document leaves open to anyone (`security: []`). */
export function publicOperation<K extends OperationId>(handle: PublicHandler<K>['handle']): PublicHandler<K> {
  return { access: 'public', handle };
}

/** A handler of a provider callback (`security: [callbackToken]`). */
export function callbackOperation<K extends OperationId>(handle: CallbackHandler<K>['handle']): CallbackHandler<K> {
  return { access: 'callback', handle };
}

/** A handler of a bearer operation: it runs only with the principal that authentication established. */
export function memberOperation<K extends OperationId>(handle: MemberHandler<K>['handle']): MemberHandler<K> {
  return { access: 'member', handle };
}
