/**
 * Reference recordings written by the official toolkit (run now, from the vendored games) imported
 * through the route: a file with a malformed line and a recording of another version of the game
 * are refused with nothing stored, and the group's per-level figures equal those the scorer
 * (`arc-studio score`'s `scoreFiles`) computes from the same files. An agent's scorecard tagged
 * `reference:<group>` is then scored against the group.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceGroupView, ReferenceGroupsView } from '../../core/protocol/api';
import { stringProblem } from '../../core/protocol/json';
import { scoreFiles } from '../../cli/score';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { OFFICIAL_GAMES, VC33, VC33_MOVES, arc3Api, runToolkit, type Arc3Api } from '../testing/arc3';
import { referenceBaselines } from './importer';

const ADMIN = 'researcher-token-for-reference-tests';

const { solve1: SOLVE_1, solve2: SOLVE_2, waste: WASTE, lose: LOSE } = VC33_MOVES;

interface Job {
  readonly dir: string;
  readonly game: string;
  readonly actions: readonly string[];
}

/** The toolkit's own recordings of action lists (src/core/scoring/fixtures/toolkit_recordings.py), written into `out`. */
const record = (jobs: readonly Job[], out: string): string[] =>
  runToolkit<string[]>(
    'toolkit_recordings.py',
    jobs.map((j) => ({ ...j, out })),
  );

const backend = backends.find((b) => b.name === 'pglite')!;

describe('reference recordings written by the official toolkit', () => {
  let tmp: string;
  let store: Store;
  let api: Arc3Api;
  let app: Hono;
  /** Three runs of vc33, one of another version of it, one with a malformed line. */
  let files: { good: string[]; otherVersion: string; malformed: string };

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'reference-'));
    // Another version of vc33: the same game under another version id, as a later download would be.
    const other = path.join(tmp, 'games');
    cpSync(path.join(OFFICIAL_GAMES, 'vc33/5430563c'), path.join(other, 'vc33/0000beef'), { recursive: true });
    const meta = path.join(other, 'vc33/0000beef/metadata.json');
    const m = JSON.parse(readFileSync(meta, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      meta,
      JSON.stringify({ ...m, game_id: 'vc33-0000beef', local_dir: 'environment_files/vc33/0000beef' }),
    );
    const written = record(
      [
        { dir: OFFICIAL_GAMES, game: VC33, actions: ['RESET', ...SOLVE_1, WASTE, ...SOLVE_2, WASTE, WASTE] },
        { dir: OFFICIAL_GAMES, game: VC33, actions: ['RESET', WASTE, WASTE, ...SOLVE_1, WASTE, 'RESET', ...SOLVE_2] },
        { dir: OFFICIAL_GAMES, game: VC33, actions: ['RESET', ...SOLVE_1, ...SOLVE_2, ...LOSE, WASTE, WASTE] },
        { dir: OFFICIAL_GAMES, game: VC33, actions: ['RESET', ...SOLVE_1] },
        { dir: other, game: 'vc33-0000beef', actions: ['RESET', ...SOLVE_1, WASTE] },
      ],
      path.join(tmp, 'recordings'),
    );
    const lines = readFileSync(written[3], 'utf8').split('\n');
    lines[2] = lines[2].slice(0, 200);
    const malformed = path.join(tmp, 'malformed.recording.jsonl');
    writeFileSync(malformed, lines.join('\n'));
    files = { good: written.slice(0, 3), otherVersion: written[4], malformed };

    store = await backend.open();
    api = await arc3Api(store, { admin: ADMIN });
    app = api.app;
  });
  afterAll(async () => {
    await api?.arc3.service.stop();
    await store?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const upload = (group: string, paths: readonly string[]) => {
    const form = new FormData();
    form.set('group', group);
    for (const p of paths) form.append('files', new Blob([readFileSync(p)]), path.basename(p));
    return app.request(`/admin/games/${VC33}/references`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}` },
      body: form,
    });
  };
  const groups = async () => {
    const res = await app.request(`/admin/games/${VC33}/references`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as ReferenceGroupsView).groups;
  };

  it('refuses a file with a malformed line, naming its line, and stores nothing of the others', async () => {
    const res = await upload('with a bad line', [...files.good, files.malformed]);
    const body = (await res.json()) as { error: string; message: string; problems: { file: string; line: number }[] };
    expect(res.status).toBe(422);
    expect(body.error).toBe('invalid_recording');
    expect(body.problems).toEqual([expect.objectContaining({ file: 'malformed.recording.jsonl', line: 3 })]);
    expect(body.message).toContain('malformed.recording.jsonl line 3: not JSON');
    expect(await groups()).toEqual([]);
  });

  it('refuses a recording of another version of the game with the reason, and stores nothing', async () => {
    const res = await upload('with another version', [...files.good, files.otherVersion]);
    const body = (await res.json()) as { error: string; message: string };
    expect(res.status).toBe(422);
    expect(body.error).toBe('other_version');
    expect(body.message).toContain(`was recorded on vc33-0000beef, and this server runs ${VC33}`);
    expect(await groups()).toEqual([]);
  });

  it('refuses a recording whose lines the mounted game does not answer', async () => {
    const lines = readFileSync(files.good[0], 'utf8').split('\n');
    const line = JSON.parse(lines[3]) as { data: { levels_completed: number } };
    line.data.levels_completed += 1;
    lines[3] = JSON.stringify(line);
    const edited = path.join(tmp, 'edited.recording.jsonl');
    writeFileSync(edited, lines.join('\n'));
    const res = await upload('edited', [files.good[1], edited]);
    const body = (await res.json()) as { error: string; message: string };
    expect(res.status).toBe(422);
    expect(body.error).toBe('other_version');
    expect(body.message).toMatch(
      /edited\.recording\.jsonl does not replay on the mounted vc33-5430563c@\w+: line 4: the recording says levels_completed/,
    );
    expect(await groups()).toEqual([]);
  });

  it("gives per-level figures equal to the scorer's from the same files", async () => {
    const res = await upload('official', files.good);
    expect(res.status).toBe(201);
    const created = (await res.json()) as ReferenceGroupView;
    const [group] = await groups();
    expect(group).toEqual(created);
    expect(group).toMatchObject({ name: 'official', game: VC33, recordings: 3, current: true });

    // The scorer: each file's first run, split into levels as `arc-studio score` splits them.
    const scored = scoreFiles(files.good, path.join(OFFICIAL_GAMES, 'vc33/5430563c/metadata.json'), 'toolkit-2026-04');
    const firstRuns = files.good.map((f) => {
      const run = scored.result.games[0].runs.find((r) => r.label === `${path.basename(f)}#1`);
      if (!run) throw new Error(`the scorer has no first run of ${f}`);
      return run;
    });
    const levels = Math.max(...firstRuns.map((r) => r.levels.filter((l) => l.agentActions !== null).length));
    expect(levels).toBe(3);
    for (let k = 0; k < levels; k++) {
      const entered = firstRuns.map((r) => r.levels[k]).filter((l) => l && l.agentActions !== null);
      const done = entered.filter((l) => l.completed).map((l) => l.agentActions!);
      const row = group.levels[k];
      expect(row.reached, `level ${k + 1} reached`).toBe(entered.length);
      expect(row.completed, `level ${k + 1} completed`).toBe(done.length);
      expect(row.actions.values, `level ${k + 1} actions`).toEqual([...done].sort((a, b) => a - b));
      expect(row.timeMs.n, `level ${k + 1} times`).toBe(done.length);
    }
    // Worked by hand from the action lists: level 1 took 3, 5 (two wastes first) and 3 actions; level 2
    // 8 (the waste after level 1), 9 (a waste and a level RESET) and 7; level 3 was entered by all three.
    expect(group.levels[0].actions.values).toEqual([3, 3, 5]);
    expect(group.levels[1].actions.values).toEqual([7, 8, 9]);
    expect(group.levels.map((l) => l.completed)).toEqual([3, 3, 0, 0, 0, 0, 0]);

    // The same recordings as an agent's baselines: every preset's figure from the completers' counts.
    const baselines = await referenceBaselines(store.references, VC33, 'official');
    expect(baselines?.games[VC33].levels[0]).toMatchObject({ reached: 3, completers: 3, actions: [3, 3, 5] });
    expect(baselines?.games[VC33].levels[1].baseline['upper-median']).toBe(8);

    const again = await upload('official', files.good);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toBe('exists');
  });

  it('refuses what a hostile client sends, with nothing stored, and keeps stored names storable', async () => {
    const post = (body: BodyInit, headers: Record<string, string> = {}) =>
      app.request(`/admin/games/${VC33}/references`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}`, ...headers },
        body,
      });
    const json = await post(JSON.stringify({ group: 'g', files: [] }), { 'Content-Type': 'application/json' });
    expect(json.status).toBe(400);
    const empty = new FormData();
    empty.set('group', 'g');
    expect((await post(empty)).status).toBe(400);
    const badName = await upload('../etc', [files.good[0]]);
    expect(badName.status).toBe(400);
    const notUtf8 = new FormData();
    notUtf8.set('group', 'g');
    notUtf8.append('files', new Blob([new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]), 'latin.jsonl');
    const refused = await post(notUtf8);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toContain('latin.jsonl is not UTF-8');
    expect((await groups()).map((g) => g.name)).toEqual(['official']);

    const named = new FormData();
    named.set('group', 'odd names');
    named.append('files', new Blob([readFileSync(files.good[0])]), 'run\u0000\ud800one.jsonl');
    try {
      expect((await post(named)).status).toBe(201);
      // The form's encoding may already replace what the server would drop: either way, nothing unstorable.
      const [rec] = await store.references.readReferenceRecordings(VC33, 'odd names');
      expect(rec.file).toMatch(/^run.?one\.jsonl$/);
      expect(stringProblem(rec.file)).toBeNull();
    } finally {
      await store.references.deleteReferenceGroup(VC33, 'odd names');
    }
  });

  it('deletes a group', async () => {
    const res = await app.request(`/admin/games/${VC33}/references/official`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${ADMIN}` },
    });
    expect(res.status).toBe(200);
    expect(await groups()).toEqual([]);
  });
});
