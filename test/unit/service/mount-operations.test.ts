import { createOperationIndex, loadOpenApiDocument } from '../../../contracts/operations';
import { mountOperations } from '../../../api/http/mount-operations';
import { callbackOperation, memberOperation, publicOperation, type OperationHandler } from '../../../api/http/operation-handler';

const index = createOperationIndex(loadOpenApiDocument());

/** A handler of the right kind for every operation of the document. */
function completeHandlers(): Record<string, OperationHandler<any>> {
  const handlers: Record<string, OperationHandler<any>> = {};
  for (const op of index.operations) {
    const reply = () => ({ status: 200 }) as never;
    handlers[op.operationId] = op.requiresBearer ? memberOperation(reply) : op.requiresCallbackToken ? callbackOperation(reply) : publicOperation(reply);
  }
  return handlers;
}

const mount = (handlers: Record<string, OperationHandler<any>>) =>
  mountOperations({ index, handlers, authenticate: () => (_req, _res, next) => next(), authenticateCallback: (_req, _res, next) => next(), parseBody: () => (_req, _res, next) => next(), validator: [] });

describe('mounting operations from the document', () => {
  test('when every operation has a handler of the kind its security needs, then the routes mount', () => {
    expect(() => mount(completeHandlers())).not.toThrow();
  });

  test('"start-up fails if an operation has no handler"', () => {
    const handlers = completeHandlers();
    delete handlers.postJournalEntry;
    expect(() => mount(handlers)).toThrow(/postJournalEntry \(POST \/api\/v1\/ledger\/\{legalEntityId\}\/entries\) has no handler/);
  });

  test('"start-up fails if a handler has no operation"', () => {
    expect(() => mount({ ...completeHandlers(), postJournalEntryTwice: publicOperation(() => ({ status: 200 }) as never) })).toThrow(
      /handler postJournalEntryTwice has no operation/,
    );
  });

  test('a public handler for a bearer operation, or a member handler for a public one, is refused', () => {
    expect(() => mount({ ...completeHandlers(), closePeriod: publicOperation(() => ({ status: 202 }) as never) })).toThrow(
      /closePeriod needs a member handler but its handler is public/,
    );
    expect(() => mount({ ...completeHandlers(), login: memberOperation(() => ({ status: 200 }) as never) })).toThrow(
      /login needs a public handler but its handler is member/,
    );
  });

  test('a provider callback is served only by a callback handler, and a public one never skips its guard', () => {
    expect(() => mount({ ...completeHandlers(), receiveEmailEvents: publicOperation(() => ({ status: 204 }) as never) })).toThrow(
      /receiveEmailEvents needs a callback handler but its handler is public/,
    );
    expect(() => mount({ ...completeHandlers(), login: callbackOperation(() => ({ status: 200 }) as never) })).toThrow(
      /login needs a public handler but its handler is callback/,
    );
  });
});
