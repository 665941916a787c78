/**
 * `arc-studio score --preset toolkit-2026-04` against the official ARC-AGI-3 toolkit, on
 * recordings the toolkit made (in process, and through its REST server with a plain client) and
 * on a hand-made one: first against the toolkit's figures pinned in fixtures/official.json, then
 * against the toolkit itself, run now on the same files (src/core/scoring/fixtures/official_score.py).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReport, scoreFiles } from './score';
import { runCli } from './testing';
import type { RhaeResult } from '../core/scoring/rhae';

const FIXTURES = path.resolve('src/core/scoring/fixtures');
/** The vendored toolkit: beside the checkout, as in CI, unless ARC_AGI_3_VENDOR says otherwise. */
const VENDOR = path.resolve(process.env.ARC_AGI_3_VENDOR ?? '../shared/vendor/arc-agi-3');

interface OfficialRun {
  score: number;
  levels_completed: number;
  level_actions: number[];
  level_scores: number[];
  message?: string;
}
interface OfficialCard {
  score: number;
  environments: { id: string; score: number; runs: OfficialRun[] }[];
}
const pinned = JSON.parse(readFileSync(path.join(FIXTURES, 'official.json'), 'utf8')) as {
  live: Record<string, OfficialCard>;
  scored: Record<string, OfficialCard>;
};
const pairs = Object.keys(pinned.scored).map((k) => k.split(' ') as [string, string]);

function ours(recording: string, metadata: string): RhaeResult {
  return scoreFiles(
    [path.join(FIXTURES, `${recording}.recording.jsonl`)],
    path.join(FIXTURES, `${metadata}.metadata.json`),
    'toolkit-2026-04',
  ).result;
}

/** Our figures against the official ones: total, per game, per run and per level (official scores are percentages). */
function expectSame(r: RhaeResult, official: OfficialCard): void {
  expect(r.total).toBeCloseTo(official.score / 100, 12);
  expect(r.games.map((g) => g.game)).toEqual(official.environments.map((e) => e.id));
  r.games.forEach((g, i) => {
    const env = official.environments[i];
    expect(g.score).toBeCloseTo(env.score / 100, 12);
    expect(g.runs).toHaveLength(env.runs.length);
    g.runs.forEach((run, j) => {
      const o = env.runs[j];
      expect(run.score).toBeCloseTo(o.score / 100, 12);
      if (o.message) {
        expect(run.zeroBecause).toBeDefined();
        return;
      }
      const m = o.level_scores.length;
      expect(run.levels.slice(0, m).map((l) => (l.score ?? 0) * 100)).toEqual(
        o.level_scores.map((x) => expect.closeTo(x, 9)),
      );
      expect(run.levels.slice(0, m).map((l) => (l.completed ? (l.agentActions ?? 0) : null))).toEqual(
        o.level_actions.map((a, k) => (k < run.levels.filter((l) => l.completed).length ? a : null)),
      );
    });
  });
}

describe("score --preset toolkit-2026-04 gives the official toolkit's figures", () => {
  it.each(pairs)('%s.recording.jsonl against %s.metadata.json (pinned)', (recording, metadata) => {
    expectSame(ours(recording, metadata), pinned.scored[`${recording} ${metadata}`]);
  });

  it('matches the scorecards the toolkit kept while the recordings were made', () => {
    expectSame(ours('vc33-toolkit', 'vc33-5430563c'), pinned.live['vc33-toolkit']);
    expectSame(ours('vc33-rest', 'vc33-5430563c'), pinned.live['vc33-rest']);
    // Official: 3 plays, best (3 + 115 + 2 * 115 capped at 3 / 28) = 10.714%.
    expect(pinned.live['vc33-rest'].score).toBeCloseTo(300 / 28, 9);
  });

  it('finds the plays of a REST recording, whose lines all say full_reset false, and says so', () => {
    const report = scoreFiles(
      [path.join(FIXTURES, 'vc33-rest.recording.jsonl')],
      path.join(FIXTURES, 'vc33-5430563c.metadata.json'),
      'toolkit-2026-04',
    );
    expect(report.files[0].runs).toBe(3);
    // The first RESET, a double RESET and a RESET right after completing level 1.
    expect(report.files[0].fullResetsInferred).toHaveLength(3);
    expect(formatReport(report)).toMatch(
      /note: \S*vc33-rest\.recording\.jsonl: 3 lines \(1, \d+, \d+\) say full_reset false for a RESET that starts a new run by the engine's rule; counted as full resets/,
    );
    expect(formatReport(report).split('\n')[0]).toBe('Total RHAE 0.1071 over 1 game (preset toolkit-2026-04 v2).');
  });

  it('leaves out the actions after GAME_OVER in a toolkit recording, as the scorecard does', () => {
    const report = scoreFiles(
      [path.join(FIXTURES, 'vc33-toolkit.recording.jsonl')],
      path.join(FIXTURES, 'vc33-5430563c.metadata.json'),
      'toolkit-2026-04',
    );
    expect(report.files[0].unscored.map((u) => u.reason)).toEqual(['after-game-over', 'after-game-over']);
    expect(formatReport(report)).toContain('2 lines not scored, as the official scorecard does not score them');
  });

  it('says in the headline when the baselines do not cover every level or this version of the game', () => {
    const short = formatReport(
      scoreFiles(
        [path.join(FIXTURES, 'vc33-toolkit.recording.jsonl')],
        path.join(FIXTURES, 'vc33-one-level.metadata.json'),
        'toolkit-2026-04',
      ),
    ).split('\n');
    expect(short.slice(0, 2)).toEqual([
      'Total RHAE 1.0000 over 1 game (preset toolkit-2026-04 v2): NOT a score over every level, the baselines do not cover them all:',
      '- vc33-5430563c: baselines cover level 1 of 7 only; levels 2-7 are left out of its score, and a run that completed more than 1 level scores 0 (official rule).',
    ]);
    const other = formatReport(
      scoreFiles(
        [path.join(FIXTURES, 'vc33-rest.recording.jsonl')],
        path.join(FIXTURES, 'vc33-short-id.metadata.json'),
        'toolkit-2026-04',
      ),
    ).split('\n');
    expect(other[1]).toBe(
      '- vc33-5430563c: the baselines have no game with this id (they have vc33: another version of it, and baselines differ between versions, so they are not used); it scores 0 and counts in the total, as in the official scorer. Give baselines for vc33-5430563c.',
    );
  });

  it('gives the same total from the command line', async () => {
    // In this process: score.test.ts runs the real binary.
    const r = await runCli([
      'score',
      path.join(FIXTURES, 'vc33-rest.recording.jsonl'),
      path.join(FIXTURES, 'vc33-toolkit.recording.jsonl'),
      '--baselines',
      path.join(FIXTURES, 'vc33-5430563c.metadata.json'),
      '--preset',
      'toolkit-2026-04',
      '--json',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { result: RhaeResult };
    expect(report.result.total).toBeCloseTo(pinned.live['vc33-rest'].score / 100, 12);
    expect(report.result.games[0].runs).toHaveLength(6);
  });

  it('agrees with the official toolkit run now on the same files', () => {
    // CI keeps ../shared beside the checkout; without the toolkit this comparison cannot run, and
    // that is a failure, not a pass.
    expect(
      existsSync(path.join(VENDOR, 'python/arc_agi/scorecard.py')),
      `the official toolkit is not at ${VENDOR} (set ARC_AGI_3_VENDOR to its folder)`,
    ).toBe(true);
    const r = spawnSync('python3', [path.join(FIXTURES, 'official_score.py'), VENDOR, 'fixtures'], {
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(r.error, 'python3 must be on the PATH').toBeUndefined();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const live = JSON.parse(r.stdout) as Record<string, OfficialCard>;
    expect(Object.keys(live)).toEqual(Object.keys(pinned.scored));
    for (const [recording, metadata] of pairs) expectSame(ours(recording, metadata), live[`${recording} ${metadata}`]);
  });
});
