import { setImmediate } from 'node:timers';

/**
 * Items queued per key and handed to `run` in batches (group commit). A key runs at most `maxRunning` batches
 * at a time; what arrives meanwhile waits, and the next batch takes up to `maxBatch` of it. An item that finds
 * its key idle waits only for the event loop's turn (the requests read in the same turn join it), so a lone
 * request is not delayed by a timer, and the batches grow with the load: the busier a key, the more each of its
 * transactions carries. `run` settles its items itself and never rejects.
 *
 * Written here rather than taken from a library: batching loaders (DataLoader) batch per tick and per load, not
 * per key while the key's previous batch is still running, which is what spreads one company's ledger row over
 * several postings.
 */
export class KeyedBatches<T> {
  private readonly keys = new Map<string, { waiting: T[]; running: number; scheduled: boolean }>();

  constructor(
    private readonly run: (batch: T[]) => Promise<void>,
    private readonly options: { maxBatch: number; maxRunning: number },
  ) {}

  add(key: string, item: T): void {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { waiting: [], running: 0, scheduled: false }));
    state.waiting.push(item);
    if (state.scheduled || state.running >= this.options.maxRunning) return;
    state.scheduled = true;
    const scheduled = state;
    setImmediate(() => {
      scheduled.scheduled = false;
      this.pump(key, scheduled);
    });
  }

  private pump(key: string, state: { waiting: T[]; running: number; scheduled: boolean }): void {
    while (state.running < this.options.maxRunning && state.waiting.length > 0) {
      const batch = state.waiting.splice(0, this.options.maxBatch);
      state.running += 1;
      void this.run(batch).finally(() => {
        state.running -= 1;
        if (state.waiting.length > 0) this.pump(key, state);
        else if (state.running === 0 && !state.scheduled && this.keys.get(key) === state) this.keys.delete(key);
      });
    }
  }
}
