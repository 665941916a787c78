import { describe, expect, it } from 'vitest';
import { GroupCommit, type GroupMember } from './groupCommit';

interface Write extends GroupMember {
  readonly name: string;
  resolve(): void;
}

/** A group commit whose statements finish only when the test says so, in any order. */
function harness(parallel: number) {
  const started: string[][] = [];
  const finish: (() => void)[] = [];
  const done: string[] = [];
  const commit = new GroupCommit<Write>({
    parallel,
    max: 10,
    run: (group) =>
      new Promise<void>((resolve) => {
        started.push(group.map((m) => m.name));
        finish.push(() => {
          for (const m of group) m.resolve();
          resolve();
        });
      }),
  });
  const add = (key: string, name: string) =>
    new Promise<void>((resolve, reject) => {
      commit.add({
        key,
        name,
        reject,
        resolve: () => {
          done.push(name);
          resolve();
        },
      });
    });
  return { started, finish, done, add };
}

describe('group commit', () => {
  it('merges writes that arrive together, one per key in a group', async () => {
    const h = harness(1);
    const all = [h.add('a', 'a1'), h.add('b', 'b1'), h.add('a', 'a2')];
    await expect.poll(() => h.started.length).toBe(1);
    expect(h.started[0]).toEqual(['a1', 'b1']);
    h.finish[0]();
    await expect.poll(() => h.started.length).toBe(2);
    expect(h.started[1]).toEqual(['a2']);
    h.finish[1]();
    await Promise.all(all);
    expect(h.done).toEqual(['a1', 'b1', 'a2']);
  });

  it('commits the writes of one key in the order they arrived, even when groups run side by side', async () => {
    const h = harness(2);
    const first = h.add('a', 'a1');
    await expect.poll(() => h.started.length).toBe(1);
    // A second write of key a, and one of key b, while a1's group is in flight.
    const second = h.add('a', 'a2');
    const other = h.add('b', 'b1');
    await expect.poll(() => h.started.length).toBe(2);
    // b1 runs beside a1; a2 waits for a1 even though a statement slot is free after b1.
    expect(h.started[1]).toEqual(['b1']);
    h.finish[1]();
    await other;
    // Let the group commit take its next turn (it starts groups on the next turn of the event loop).
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(h.started.length).toBe(2);
    h.finish[0]();
    await first;
    await expect.poll(() => h.started.length).toBe(3);
    expect(h.started[2]).toEqual(['a2']);
    h.finish[2]();
    await second;
    expect(h.done).toEqual(['b1', 'a1', 'a2']);
  });
});
