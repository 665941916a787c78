/**
 * The game versions a study started with, on both databases: pinned in the transaction that
 * creates the first session that has each game (a plain session or a campaign's draw), never
 * changed by later sessions, never left by a session that failed, and removed with the study.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from './testing';
import type { NewSession, Store, StudyGamePin } from './types';

const session = (k: number, at: number): NewSession => ({
  id: `00000000-0000-4000-8000-00000000000${k}`,
  studyId: 'games',
  studyVersion: 1,
  tokenHash: `hash-${k}`,
  params: {},
  seed: k,
  order: [0, 1],
  createdAt: at,
});
const ls20 = (hash: string): StudyGamePin => ({
  gameId: 'ls20-9607627b',
  version: `ls20-9607627b@${hash}`,
  codeHash: hash,
});
const push: StudyGamePin = { gameId: 'push', version: 'push-v3', codeHash: null };

describe.each(backends)('study game pins on $name', (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = await backend.open();
    await store.saveStudy('games', { title: 'games' }, 'studio', 1000);
  });
  afterEach(async () => {
    await store.close();
  });

  it('keeps the versions of the first session that had each game, whatever later sessions bring', async () => {
    expect(await store.studyGamePins('games')).toEqual([]);
    await store.createSession(session(1, 2000), [ls20('aaaaaaaaaaaa')]);
    // The game's files changed; a later session brings the new version and a game added since.
    await store.createSession(session(2, 3000), [ls20('bbbbbbbbbbbb'), push]);
    expect(await store.studyGamePins('games')).toEqual([
      { ...ls20('aaaaaaaaaaaa'), sessionId: session(1, 0).id, pinnedAt: 2000 },
      { ...push, sessionId: session(2, 0).id, pinnedAt: 3000 },
    ]);
  });

  it('pins nothing for a session that was not created', async () => {
    await store.createSession(session(1, 2000));
    // The same id again: the insert fails, and its pins go with it.
    await expect(store.createSession(session(1, 2500), [ls20('aaaaaaaaaaaa')])).rejects.toThrow();
    expect(await store.studyGamePins('games')).toEqual([]);
    expect((await store.listSessions('games')).map((s) => s.createdAt)).toEqual([2000]);
  });

  it("pins in a campaign draw's transaction, and not when the draw fails", async () => {
    const request = {
      campaign: 'study:games',
      participant: null,
      pools: [{ id: 'grid', candidates: ['c0', 'c1'] }],
      quietBefore: 0,
      createdBefore: 0,
      claim: true,
    };
    const choice = () => ({ order: [0], pools: [{ pool: 'grid', count: 1, drawn: ['c0'], figures: {} }] });
    const { order: _order, ...first } = session(1, 2000);
    await expect(
      store.campaigns.createDrawnSession(first, { ...request, pins: [ls20('aaaaaaaaaaaa')] }, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await store.studyGamePins('games')).toEqual([]);
    await store.campaigns.createDrawnSession(first, { ...request, pins: [ls20('bbbbbbbbbbbb')] }, choice);
    const { order: _o2, ...second } = session(2, 3000);
    await store.campaigns.createDrawnSession(second, { ...request, pins: [ls20('cccccccccccc')] }, choice);
    expect(await store.studyGamePins('games')).toEqual([
      { ...ls20('bbbbbbbbbbbb'), sessionId: first.id, pinnedAt: 2000 },
    ]);
  });

  it('goes with its study', async () => {
    await store.createSession(session(1, 2000), [push]);
    await store.deleteStudy('games', { actor: 'researcher', reason: null, at: 4000 });
    await store.saveStudy('games', { title: 'games again' }, 'studio', 5000);
    expect(await store.studyGamePins('games')).toEqual([]);
  });
});
