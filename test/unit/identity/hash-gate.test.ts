import { createHashGate } from '../../../core/identity/hash-gate';
import { AppError } from '../../../core/shared/problems';

/** A piece of work the test finishes when it chooses. */
function held<T>(value: T) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  return {
    work: async () => {
      started = true;
      await done;
      return value;
    },
    finish,
    get started() {
      return started;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('password-hash gate', () => {
  test('runs at most `concurrency` at once and hands the slot to the oldest waiter, in order', async () => {
    const gate = createHashGate({ concurrency: 2, maxWaitMs: 10_000 });
    const jobs = [held('a'), held('b'), held('c'), held('d')];
    const results = jobs.map((j) => gate.run(j.work));
    await tick();
    expect(jobs.map((j) => j.started)).toEqual([true, true, false, false]);
    expect([gate.running, gate.waiting]).toEqual([2, 2]);

    jobs[1]!.finish();
    await tick();
    expect(jobs.map((j) => j.started)).toEqual([true, true, true, false]);
    expect([gate.running, gate.waiting]).toEqual([2, 1]);

    jobs[0]!.finish();
    jobs[2]!.finish();
    jobs[3]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect([gate.running, gate.waiting, gate.refused]).toEqual([0, 0, 0]);
  });

  test('a waiter past maxWaitMs is refused with 503 server-busy and Retry-After, and never runs', async () => {
    const gate = createHashGate({ concurrency: 1, maxWaitMs: 20 });
    const first = held('first');
    const running = gate.run(first.work);
    const late = held('late');
    const refused = gate.run(late.work).catch((err: unknown) => err);
    const err = await refused;
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).type).toBe('server-busy');
    expect((err as AppError).status).toBe(503);
    expect((err as AppError).headers['Retry-After']).toBe('1');
    expect(late.started).toBe(false);
    expect([gate.running, gate.waiting, gate.refused]).toEqual([1, 0, 1]);

    // The slot is still usable after a refusal: the next caller runs once the first finishes.
    const next = held('next');
    const after = gate.run(next.work);
    first.finish();
    next.finish();
    expect(await running).toBe('first');
    expect(await after).toBe('next');
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  test('a failing hash frees its slot', async () => {
    const gate = createHashGate({ concurrency: 1, maxWaitMs: 1000 });
    await expect(gate.run(async () => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    expect(gate.running).toBe(0);
    expect(await gate.run(async () => 'ok')).toBe('ok');
  });

  test('when one client address holds its share (running and waiting), then its next hash is refused at once with 429, and other addresses still queue', async () => {
    const gate = createHashGate({ concurrency: 1, maxWaitMs: 10_000, perClient: 2 });
    const mine = [held(1), held(2)];
    const running = mine.map((j) => gate.run(j.work, '198.51.100.7'));
    await tick();
    const third = gate.run(held(3).work, '198.51.100.7');
    await expect(third).rejects.toBeInstanceOf(AppError);
    await expect(third).rejects.toMatchObject({ type: 'too-many-requests', status: 429, headers: { 'Retry-After': '1' } });
    const other = held('other');
    const theirs = gate.run(other.work, '203.0.113.9');
    expect(gate.waiting).toBe(2);
    mine[0]!.finish();
    mine[1]!.finish();
    await Promise.all(running);
    await tick();
    expect(other.started).toBe(true);
    other.finish();
    await expect(theirs).resolves.toBe('other');
    // The share is given back as its hashes end.
    const again = held(4);
    const next = gate.run(again.work, '198.51.100.7');
    await tick();
    again.finish();
    await expect(next).resolves.toBe(4);
  });

  test('when no client address is given, then no share applies', async () => {
    const gate = createHashGate({ concurrency: 1, maxWaitMs: 10_000, perClient: 1 });
    const jobs = [held('a'), held('b'), held('c')];
    const results = jobs.map((j) => gate.run(j.work));
    await tick();
    jobs.forEach((j) => j.finish());
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c']);
  });
});
