/**
 * Agents' game sessions on servers sharing one database (`serve --workers N`, several machines):
 * an agent's requests may land on any server, in turn. Each server stores a step before it
 * answers, only under a step number still free; a server whose copy of the session is behind
 * reads it again from the stored steps. The answers are those of one uninterrupted run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRun, step, versionedGameId } from '../../core/game';
import { games, solutions } from '../../games';
import { hashToken } from '../people/auth';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { AgentService, RESEARCHER } from './service';

const ADMIN = 'researcher-token-for-shared-agent-tests';
const PUSH = versionedGameId(games.push);
const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

const act = async (s: AgentService, action: string, body: Record<string, unknown>) =>
  JSON.parse((await s.command(RESEARCHER, action as 'RESET', { game_id: PUSH, ...body })).json) as {
    guid: string;
    levels_completed: number;
    frame: number[][][];
    state: string;
  };

describe.each(backends)('agents on servers sharing $name', (backend) => {
  it('answer every step of one session alike whichever server gets it, each step stored once', async () => {
    const store = await backend.open();
    stores.push(store);
    // Two servers: each its own memory, one database.
    const servers = [0, 1].map(() => new AgentService({ store, adminTokenHash: hashToken(ADMIN), shared: true }));
    const card = await servers[0].openCard(RESEARCHER, { tags: ['shared'] });
    const moves = solutions.push[0].split(',');
    const opened = await act(servers[0], 'RESET', { card_id: card });
    // Two on the first, one on the second, then alternating: each server's copy falls behind.
    const order = moves.map((_, i) => (i < 2 ? 0 : i % 2));
    let last = opened;
    let run = createRun(games.push);
    ({ run } = step(run, { action: 'RESET' }));
    for (const [i, m] of moves.entries()) {
      last = await act(servers[order[i]], m, { guid: opened.guid });
      let response;
      ({ run, response } = step(run, { action: m as 'ACTION1' }));
      expect(last.frame[last.frame.length - 1].flat(), `step ${i + 1} (${m}) on server ${order[i]}`).toEqual([
        ...response.frame[response.frame.length - 1],
      ]);
    }
    expect(last.levels_completed).toBe(1);
    // Stored at once (no write-behind), each number once, in the order answered.
    const steps = await store.readAgentSteps(opened.guid);
    expect(steps.map((s) => s.seq)).toEqual(Array.from({ length: moves.length + 1 }, (_, i) => i));
    expect(steps.map((s) => s.action)).toEqual(['RESET', ...moves]);

    // The scorecard read on either server counts every step, wherever it was answered.
    for (const s of servers) {
      const sc = (await s.scorecard(RESEARCHER, card)) as {
        environments: { actions: number; levels_completed: number }[];
      };
      expect(sc.environments).toEqual([expect.objectContaining({ actions: moves.length, levels_completed: 1 })]);
    }
    // Closed on one server: the other's copy stops too.
    await servers[1].closeCard(RESEARCHER, card);
    await expect(act(servers[0], 'ACTION1', { guid: opened.guid })).rejects.toThrow(/ended on another server/);
    for (const s of servers) await s.stop();
  });

  it('two servers acting on one step number at the same moment store one and rebuild the other', async () => {
    const store = await backend.open();
    stores.push(store);
    const servers = [0, 1].map(() => new AgentService({ store, adminTokenHash: hashToken(ADMIN), shared: true }));
    const card = await servers[0].openCard(RESEARCHER, { tags: ['race'] });
    const opened = await act(servers[0], 'RESET', { card_id: card });
    await act(servers[1], 'ACTION1', { guid: opened.guid });
    // Both hold the session at step 1 now; both act at once.
    const both = await Promise.all(servers.map((s) => act(s, 'ACTION2', { guid: opened.guid })));
    expect(both.every((b) => b.guid === opened.guid)).toBe(true);
    const steps = await store.readAgentSteps(opened.guid);
    expect(steps.map((s) => [s.seq, s.action])).toEqual([
      [0, 'RESET'],
      [1, 'ACTION1'],
      [2, 'ACTION2'],
      [3, 'ACTION2'],
    ]);
    for (const s of servers) await s.stop();
  });

  it('a copy behind by one step that then loses a race for the next number is rebuilt again, not refused', async () => {
    const store = await backend.open();
    stores.push(store);
    // The first server reads the stored steps through this store: the moment it has read them,
    // the second server stores the next step, so its rebuilt copy is behind again.
    let interleave: (() => Promise<unknown>) | null = null;
    const racing: Store = Object.create(store, {
      readAgentSteps: {
        value: async (guid: string) => {
          const steps = await store.readAgentSteps(guid);
          const then = interleave;
          interleave = null;
          await then?.();
          return steps;
        },
      },
    }) as Store;
    const servers = [racing, store].map(
      (s) => new AgentService({ store: s, adminTokenHash: hashToken(ADMIN), shared: true }),
    );
    const card = await servers[0].openCard(RESEARCHER, { tags: ['race'] });
    const opened = await act(servers[0], 'RESET', { card_id: card });
    await act(servers[1], 'ACTION1', { guid: opened.guid });
    interleave = () => act(servers[1], 'ACTION3', { guid: opened.guid });
    // The first server's copy is at step 1: step 1 is taken, the rebuilt copy's step 2 is taken too.
    const answered = await act(servers[0], 'ACTION2', { guid: opened.guid });
    expect(answered.guid).toBe(opened.guid);
    expect(interleave).toBeNull();
    const steps = await store.readAgentSteps(opened.guid);
    expect(steps.map((s) => [s.seq, s.action])).toEqual([
      [0, 'RESET'],
      [1, 'ACTION1'],
      [2, 'ACTION3'],
      [3, 'ACTION2'],
    ]);
    for (const s of servers) await s.stop();
  });
});
