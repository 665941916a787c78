/**
 * Agents' keys, scorecards and game sessions on both stores (PGlite and PostgreSQL): a session
 * and its scorecard survive a restart of the service (a new one on the same database goes on
 * from the stored steps), a revoked key stops working, and the scorecard of a built-in game is
 * scored against a study's baselines when given; a card's tags choose its study and preset, and
 * an exported baselines file is matched by the game's version; a card tagged `reference:<group>` is
 * scored against that reference group only.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRun, step, versionedGameId } from '../../core/game';
import { computeBaselines } from '../../core/scoring';
import { games, solutions } from '../../games';
import { hashToken } from '../people/auth';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { referenceBaselines } from '../reference/importer';
import { AgentError, AgentService, RESEARCHER } from './service';

const ADMIN = 'researcher-token-for-agent-service-tests';
const PUSH = versionedGameId(games.push);
const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

const act = async (s: AgentService, action: string, body: Record<string, unknown>) =>
  JSON.parse((await s.command(RESEARCHER, action as 'RESET', { game_id: PUSH, ...body })).json) as {
    guid: string;
    levels_completed: number;
    full_reset: boolean;
    frame: number[][][];
    state: string;
  };

describe.each(backends)('agents on $name', (backend) => {
  it('a game session and its scorecard survive a restart', async () => {
    const store = await backend.open();
    stores.push(store);
    const first = new AgentService({ store, adminTokenHash: hashToken(ADMIN) });
    const card = await first.openCard(RESEARCHER, { tags: ['restart'] });
    const moves = solutions.push[0].split(',');
    const opened = await act(first, 'RESET', { card_id: card });
    for (const m of moves.slice(0, 2)) await act(first, m, { guid: opened.guid });
    await first.stop();

    const second = new AgentService({ store, adminTokenHash: hashToken(ADMIN) });
    let last = opened;
    for (const m of moves.slice(2)) last = await act(second, m, { guid: opened.guid });
    expect(last.levels_completed).toBe(1);
    // The same frame as an uninterrupted run of the same actions.
    let run = createRun(games.push);
    ({ run } = step(run, { action: 'RESET' }));
    for (const m of moves) ({ run } = step(run, { action: m as 'ACTION1' }));
    const { response } = step(run, { action: 'ACTION7' });
    const undone = await act(second, 'ACTION7', { guid: opened.guid });
    expect(undone.frame[undone.frame.length - 1].flat()).toEqual([...response.frame[response.frame.length - 1]]);
    await second.stop();

    const third = new AgentService({ store, adminTokenHash: hashToken(ADMIN) });
    const sc = (await third.scorecard(RESEARCHER, card)) as {
      environments: { id: string; actions: number; levels_completed: number }[];
    };
    expect(sc.environments).toEqual([
      expect.objectContaining({ id: PUSH, actions: moves.length + 1, levels_completed: 1 }),
    ]);
    await third.closeCard(RESEARCHER, card);
    await expect(act(third, 'ACTION1', { guid: opened.guid })).rejects.toThrow(/no game session/);
    await third.stop();
  });

  it('idle sessions and scorecards are let go, and come back from the store as they were', async () => {
    const store = await backend.open();
    stores.push(store);
    let now = Date.UTC(2026, 0, 1);
    const s = new AgentService({ store, adminTokenHash: hashToken(ADMIN), now: () => now });
    const moves = solutions.push[0].split(',');
    const idle = await s.openCard(RESEARCHER, { tags: ['idle'] });
    const opened = await act(s, 'RESET', { card_id: idle });
    await act(s, moves[0], { guid: opened.guid });
    now += 20 * 60_000;
    const busy = await s.openCard(RESEARCHER, { tags: ['busy'] });
    const other = await act(s, 'RESET', { card_id: busy });
    expect(s.held()).toEqual({ sessions: 2, cards: 2 });
    now += 15 * 60_000;
    await act(s, moves[0], { guid: other.guid });
    s.sweep();
    // The first card and its session were idle for 35 minutes; the second was used just now.
    expect(s.held()).toEqual({ sessions: 1, cards: 1 });
    let last = opened;
    for (const m of moves.slice(1)) last = await act(s, m, { guid: opened.guid });
    expect(last.levels_completed).toBe(1);
    const sc = (await s.scorecard(RESEARCHER, idle)) as {
      environments: { actions: number; levels_completed: number }[];
    };
    // Every action of the card counted once (the opening RESET is not an action), held or not.
    expect(sc.environments).toEqual([expect.objectContaining({ actions: moves.length, levels_completed: 1 })]);
    expect(s.held()).toEqual({ sessions: 2, cards: 2 });
    await s.stop();
  });

  it('keys: issued, checked, revoked; a card opened with one key is closed to another', async () => {
    const store = await backend.open();
    stores.push(store);
    const s = new AgentService({ store, adminTokenHash: hashToken(ADMIN) });
    expect(await s.authenticate(ADMIN)).toBe(RESEARCHER);
    const a = await s.issueKey('a');
    const b = await s.issueKey('b');
    expect(await s.authenticate(a.key)).toBe(a.id);
    const card = await s.openCard(a.id, {});
    await expect(s.scorecard(b.id, card)).rejects.toThrow(/another API key/);
    expect(await s.revokeKey(a.id)).toBe(true);
    expect(await s.revokeKey(a.id)).toBe(false);
    expect(await s.authenticate(a.key)).toBeNull();
    // Two keys issued in the same millisecond may list in either order.
    const listed = (await s.listKeys()).map((k) => [k.name, k.revokedAt === null]).sort();
    expect(listed).toEqual([
      ['a', false],
      ['b', true],
    ]);
    await s.stop();
  });

  it("a built-in game is scored against the baselines given (a study's), under the official formula", async () => {
    const store = await backend.open();
    stores.push(store);
    // Five participants took 4, 5, 6, 8 and 10 actions on level 1: upper-median 6.
    const baselines = computeBaselines(
      [4, 5, 6, 8, 10].map((n, i) => ({ participant: `p${i}`, game: PUSH, levels: [{ completed: true, actions: n }] })),
      { [PUSH]: games.push.levels.length },
    );
    const s = new AgentService({ store, adminTokenHash: hashToken(ADMIN), baselines: () => baselines });
    const card = await s.openCard(RESEARCHER, {});
    const opened = await act(s, 'RESET', { card_id: card });
    for (const m of solutions.push[0].split(',')) await act(s, m, { guid: opened.guid });
    const sc = (await s.closeCard(RESEARCHER, card)) as {
      score: number;
      environments: { runs: { level_scores: number[]; level_baseline_actions: number[] }[] }[];
    };
    const run = sc.environments[0].runs[0];
    expect(run.level_baseline_actions[0]).toBe(6);
    expect(run.level_scores[0]).toBeCloseTo(Math.min(115, (6 / 4) ** 2 * 100), 10);
    // Only level 1 has a baseline: ARC Studio's scorer leaves the others out of the game score.
    expect(run.level_baseline_actions[1]).toBe(-1);
    expect(sc.score).toBeCloseTo(100, 10);
    await s.stop();
  });

  it("a card tagged study:<id> and preset:<name> is scored against the study's baselines, before the server's file", async () => {
    const store = await backend.open();
    stores.push(store);
    const moves = solutions.push[0].split(',');
    // The server's file, as a study's export writes it: the current version under its short id.
    const exported = computeBaselines(
      [4, 5, 6, 8, 10].map((n, i) => ({
        participant: `p${i}`,
        game: 'push',
        levels: [{ completed: true, actions: n }],
      })),
    );
    const file = { ...exported, games: { push: { ...exported.games.push, version: PUSH } } };
    // The study: two participants, 4 and 8 actions: second-best 8 (the paper's), upper-median 8.
    const study = computeBaselines(
      [4, 8].map((n, i) => ({ participant: `q${i}`, game: PUSH, levels: [{ completed: true, actions: n }] })),
    );
    const s = new AgentService({
      store,
      adminTokenHash: hashToken(ADMIN),
      baselines: () => file,
      studyBaselines: (id) => Promise.resolve(id === 'pilot' ? study : null),
    });
    type Card = {
      preset: string;
      environments: {
        baselines: string | null;
        runs: { level_scores: number[]; level_baseline_actions: number[] }[];
      }[];
    };
    const play = async (tags: string[]) => {
      const card = await s.openCard(RESEARCHER, { tags });
      const opened = await act(s, 'RESET', { card_id: card });
      for (const m of moves) await act(s, m, { guid: opened.guid });
      return (await s.closeCard(RESEARCHER, card)) as Card;
    };
    const tagged = await play(['study:pilot', 'preset:paper']);
    expect(tagged.preset).toBe('paper');
    expect(tagged.environments[0].baselines).toBe('study:pilot');
    expect(tagged.environments[0].runs[0].level_baseline_actions[0]).toBe(8);
    expect(tagged.environments[0].runs[0].level_scores[0]).toBeCloseTo(Math.min(1, 8 / moves.length) ** 2 * 100, 10);
    const plain = await play([]);
    expect(plain.preset).toBe('toolkit-2026-04');
    expect(plain.environments[0].baselines).toBe('file');
    expect(plain.environments[0].runs[0].level_baseline_actions[0]).toBe(6);
    await expect(s.openCard(RESEARCHER, { tags: ['study:nope'] })).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('no study "nope"') as unknown,
    });
    await expect(s.openCard(RESEARCHER, { tags: ['preset:best'] })).rejects.toBeInstanceOf(AgentError);
    await expect(s.openCard(RESEARCHER, { tags: ['study:a', 'study:b'] })).rejects.toMatchObject({ status: 400 });
    await s.stop();
  });

  it('a card tagged reference:<group> is scored against that reference group alone', async () => {
    const store = await backend.open();
    stores.push(store);
    const moves = solutions.push[0].split(',');
    // Three recordings completed level 1 in 5, 7 and 12 actions: upper-median 7.
    await store.references.addReferenceGroup(
      { gameId: PUSH, name: 'elsewhere', version: PUSH, winLevels: null, createdAt: 1, createdBy: 'researcher' },
      [5, 7, 12].map((n, i) => ({
        file: `r${i}.recording.jsonl`,
        guid: `g${i}`,
        startedAt: null,
        plays: 1,
        actions: n,
        state: 'NOT_FINISHED',
        levels: [{ completed: true, actions: n, timeMs: 1000 }],
        inputs: 'RESET',
      })),
    );
    const study = computeBaselines([{ participant: 'q', game: PUSH, levels: [{ completed: true, actions: 4 }] }]);
    const s = new AgentService({
      store,
      adminTokenHash: hashToken(ADMIN),
      studyBaselines: () => Promise.resolve(study),
      referenceBaselines: (game, group) => referenceBaselines(store.references, game, group),
    });
    type Card = {
      environments: { baselines: string | null; runs: { level_baseline_actions: number[]; message?: string }[] }[];
    };
    const play = async (tags: string[]) => {
      const card = await s.openCard(RESEARCHER, { tags });
      const opened = await act(s, 'RESET', { card_id: card });
      for (const m of moves) await act(s, m, { guid: opened.guid });
      return (await s.closeCard(RESEARCHER, card)) as Card;
    };
    const tagged = await play(['study:pilot', 'reference:elsewhere']);
    expect(tagged.environments[0].baselines).toBe('reference:elsewhere');
    expect(tagged.environments[0].runs[0].level_baseline_actions[0]).toBe(7);
    // A group without the game: no other source stands in, and the run says why.
    const missing = await play(['reference:nobody']);
    expect(missing.environments[0].runs[0].level_baseline_actions[0]).toBe(-1);
    expect(missing.environments[0].runs[0].message).toContain('the reference group "nobody" has no recordings of');
    await expect(s.openCard(RESEARCHER, { tags: ['reference:a', 'reference:b'] })).rejects.toMatchObject({
      status: 400,
    });
    await s.stop();
  });
});
