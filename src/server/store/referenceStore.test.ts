/**
 * Reference groups in the store on both databases: a group and its recordings are written in one
 * transaction (a recording the database refuses leaves no group behind), a name is used once per
 * game, and deleting a group deletes its recordings.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { backends } from './testing';
import type { ReferenceRecordingRecord } from './referenceStore';
import type { Store } from './types';

const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

const GROUP = {
  gameId: 'vc33-5430563c',
  name: 'arc-prize',
  version: 'vc33-5430563c@abc',
  winLevels: 7,
  createdAt: 1_000,
  createdBy: 'designer@lab.org',
};
const recording = (file: string, actions: number): ReferenceRecordingRecord => ({
  file,
  guid: `guid-${file}`,
  startedAt: '2026-05-03T14:30:22.123456+00:00',
  plays: 1,
  actions,
  state: 'NOT_FINISHED',
  levels: [{ completed: true, actions, timeMs: 1234.5 }],
  inputs: 'RESET,ACTION6:60:32',
});

describe.each(backends)('reference groups on $name', (backend) => {
  it('writes a group whole or not at all, once per name, and deletes it with its recordings', async () => {
    const store = await backend.open();
    stores.push(store);
    const refs = store.references;
    // The second recording's count is not a whole number: the database refuses it mid-write.
    await expect(refs.addReferenceGroup(GROUP, [recording('a', 3), recording('b', 2.5)])).rejects.toThrow();
    expect(await refs.listReferenceGroups(null)).toEqual([]);

    expect(await refs.addReferenceGroup(GROUP, [recording('a', 3), recording('b', 5)])).toBe('added');
    expect(await refs.addReferenceGroup(GROUP, [recording('c', 4)])).toBe('exists');
    expect(await refs.listReferenceGroups(GROUP.gameId)).toEqual([{ ...GROUP, recordings: 2 }]);
    expect(await refs.listReferenceGroups('ls20-9607627b')).toEqual([]);
    expect(await refs.readReferenceRecordings(GROUP.gameId, GROUP.name)).toEqual([
      recording('a', 3),
      recording('b', 5),
    ]);

    expect(await refs.deleteReferenceGroup(GROUP.gameId, GROUP.name)).toBe(true);
    expect(await refs.deleteReferenceGroup(GROUP.gameId, GROUP.name)).toBe(false);
    expect(await refs.readReferenceRecordings(GROUP.gameId, GROUP.name)).toEqual([]);
  });
});
