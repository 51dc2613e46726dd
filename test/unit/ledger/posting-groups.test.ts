import { KeyedBatches } from '../../../api/ledger/posting-groups';

/** A run that records its batches and finishes each when the test says so. */
function recordingRun() {
  const batches: Array<{ items: string[]; finish: () => void }> = [];
  const run = (items: string[]) =>
    new Promise<void>((resolve) => {
      batches.push({ items, finish: resolve });
    });
  return { batches, run };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('KeyedBatches (group commit queue)', () => {
  test('items added in one turn of the event loop form one batch; what arrives while it runs waits for the next', async () => {
    const { batches, run } = recordingRun();
    const queue = new KeyedBatches<string>(run, { maxBatch: 10, maxRunning: 1 });
    queue.add('a', '1');
    queue.add('a', '2');
    await turn();
    expect(batches.map((b) => b.items)).toEqual([['1', '2']]);
    queue.add('a', '3');
    queue.add('a', '4');
    await turn();
    expect(batches).toHaveLength(1);
    batches[0]!.finish();
    await turn();
    expect(batches.map((b) => b.items)).toEqual([['1', '2'], ['3', '4']]);
  });

  test('a batch takes at most maxBatch items, and a key runs at most maxRunning batches at once', async () => {
    const { batches, run } = recordingRun();
    const queue = new KeyedBatches<string>(run, { maxBatch: 2, maxRunning: 2 });
    for (const item of ['1', '2', '3', '4', '5']) queue.add('a', item);
    await turn();
    expect(batches.map((b) => b.items)).toEqual([['1', '2'], ['3', '4']]);
    batches[1]!.finish();
    await turn();
    expect(batches.map((b) => b.items)).toEqual([['1', '2'], ['3', '4'], ['5']]);
  });

  test('keys never share a batch or wait for each other', async () => {
    const { batches, run } = recordingRun();
    const queue = new KeyedBatches<string>(run, { maxBatch: 10, maxRunning: 1 });
    queue.add('a', 'a1');
    queue.add('b', 'b1');
    await turn();
    queue.add('a', 'a2');
    queue.add('b', 'b2');
    await turn();
    expect(batches.map((b) => b.items)).toEqual([['a1'], ['b1']]);
    batches[1]!.finish();
    await turn();
    expect(batches.map((b) => b.items)).toEqual([['a1'], ['b1'], ['b2']]);
  });

  test('an idle key is forgotten, and a later item starts a batch of its own', async () => {
    const { batches, run } = recordingRun();
    const queue = new KeyedBatches<string>(run, { maxBatch: 10, maxRunning: 1 });
    queue.add('a', '1');
    await turn();
    batches[0]!.finish();
    await turn();
    expect((queue as unknown as { keys: Map<string, unknown> }).keys.size).toBe(0);
    queue.add('a', '2');
    await turn();
    expect(batches.map((b) => b.items)).toEqual([['1'], ['2']]);
  });
});
