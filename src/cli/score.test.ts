import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseActions, type ActionInput } from '../core/game';
import { toRecording } from '../core/formats/recording';
import { baselinesToJson, computeBaselines } from '../core/scoring/baselines';
import { games, solutions } from '../games';
import { formatReport, scoreCommand, scoreFiles } from './score';
import { runCli, spawnCli } from './testing';

/** `arc-studio score <args>` in this process (`runCli`); the real binary has one test of its own at the end. */
const cli = (...args: string[]) => runCli(['score', ...args]);

const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-score-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeRecording(name: string, inputs: readonly ActionInput[]): string {
  const file = path.join(dir, name);
  const lines = toRecording(
    games.push,
    0,
    inputs.map((input, i) => ({ input, t: i * 400 })),
    { guid: name, startTime: Date.UTC(2026, 3, 1) },
  );
  writeFileSync(file, [...lines].join('\n') + '\n');
  return file;
}

// Level 1 in 5 actions (a bump into the wall, then the solution), level 2 by its solution (15),
// one action in level 3.
const slow = writeRecording(
  'slow.recording.jsonl',
  parseActions(`RESET,ACTION3,${solutions.push[0]},${solutions.push[1]},ACTION1`),
);
// Level 1 in 4, level 2 in 15, level 3 in 17: all by their solutions.
const fast = writeRecording('fast.recording.jsonl', parseActions(`RESET,${solutions.push.slice(0, 3).join(',')}`));

/**
 * Humans: level 1 in 4, 5, 8, 10 (second-best 5, upper-median 8); level 2 in 15, 30 (second-best
 * 30, upper-median 30); level 3 in 17 by one player (no second-best; upper-median 17).
 */
const done = (...counts: number[]) => counts.map((actions) => ({ completed: true, actions }));
const baselinesFile = path.join(dir, 'baselines.json');
writeFileSync(
  baselinesFile,
  baselinesToJson(
    computeBaselines([
      { participant: 'a', game: 'push', levels: done(4, 15, 17) },
      { participant: 'b', game: 'push', levels: [...done(5, 30), { completed: false, actions: 40 }] },
      { participant: 'c', game: 'push', levels: [...done(8), { completed: false, actions: 50 }] },
      { participant: 'd', game: 'push', levels: done(10) },
    ]),
  ),
);

describe('arc-studio score', () => {
  it('prints a table under the default toolkit-2026-04 preset, every figure with its preset and counts', async () => {
    const r = await cli(slow, '--baselines', baselinesFile);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    // Push has 6 levels; the humans' upper-median covers 3: the headline says so before anything else.
    expect(lines.slice(0, 2)).toEqual([
      'Total RHAE 0.5000 over 1 game (preset toolkit-2026-04 v2): NOT a score over every level, the baselines do not cover them all:',
      '- push: baselines cover levels 1-3 of 6 only; levels 4-6 are left out of its score, and a run that completed more than 3 levels scores 0 (official rule).',
    ]);
    expect(lines[2]).toMatch(/^RHAE, preset toolkit-2026-04 v2: /);
    expect(lines[3]).toBe(`Human baselines: upper-median v1 of first-time players, from ${baselinesFile}.`);
    // Level 1: (8/5)^2 = 2.56 -> 1.15; level 2: (30/15)^2 = 4 -> 1.15; level 3 not completed.
    expect(r.out).toMatch(/push +slow\.recording\.jsonl#1 +1 +1 +8 +upper-median +4\/4 +5 +yes +1\.1500/);
    expect(r.out).toMatch(/push +slow\.recording\.jsonl#1 +2 +2 +30 +upper-median +2\/3 +15 +yes +1\.1500/);
    expect(r.out).toMatch(/push +slow\.recording\.jsonl#1 +3 +3 +17 +upper-median +1\/2 +1 +no +0\.0000/);
    // Weighted mean (1.15 + 2.3) / 6 = 0.575, capped by the completed share 3/6.
    expect(r.out).toContain(
      'game push: 0.5000 (run slow.recording.jsonl#1; weighted mean 0.5750, completed share 0.5000; 4 first-time players)',
    );
    expect(r.out).toContain(
      'total: 0.5000, mean over 1 game (preset toolkit-2026-04); NOT a score over every level, the baselines do not cover them all (see the top)',
    );
  });

  it('prints JSON with --json, under the paper preset, leaving out levels without a baseline', async () => {
    const r = await cli(slow, '--baselines', baselinesFile, '--preset', 'paper', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    // Level 1: min(1, 5/5)^2 = 1; level 2: min(1, 30/15)^2 = 1; level 3 has one completer.
    expect(report.result).toMatchObject({ preset: 'paper', baselinePreset: 'second-best', total: 1 });
    expect(report.result.games[0].runs[0].levels.map((l: { score: number | null }) => l.score)).toEqual([
      1,
      1,
      null,
      null,
      null,
      null,
    ]);
    expect(report.result.complete).toBe(false);
    expect(report.result.warnings).toEqual([
      'push: baselines cover levels 1-2 of 6 only; levels 3-6 are left out of its score.',
    ]);
    expect(report.result.games[0].runs[0].levels[2].human).toMatchObject({
      value: null,
      reason: 'needs 2 completers, has 1',
    });
    expect(report.files).toEqual([{ file: slow, runs: 1, skipped: [], unscored: [], fullResetsInferred: [] }]);
  });

  it('takes the best run per game under toolkit-2026-04 and the first under paper', () => {
    const toolkit = scoreFiles([slow, fast], baselinesFile, 'toolkit-2026-04').result;
    // Fast: (8/4)^2 -> 1.15, (30/15)^2 -> 1.15, (17/17)^2 = 1: (1.15 + 2.3 + 3) / 6 = 1.075, capped at 1.
    expect(toolkit.games[0].counted).toBe(1);
    expect(toolkit.total).toBe(1);
    expect(scoreFiles([slow, fast], baselinesFile, 'paper').result.games[0].counted).toBe(0);
  });

  it('reads official recordings with named ids and lines that are not frames', () => {
    const named = path.join(dir, 'named.recording.jsonl');
    const lines = [
      ...toRecording(
        games.push,
        0,
        parseActions(`RESET,ACTION3,${solutions.push[0]},${solutions.push[1]},ACTION1`).map((input, i) => ({
          input,
          t: i,
        })),
        { guid: 'n', startTime: 0 },
      ),
    ];
    const renamed = lines.map((l) => {
      const j = JSON.parse(l);
      j.data.action_input.id = j.data.action_input.id === 0 ? 'RESET' : `ACTION${j.data.action_input.id}`;
      return JSON.stringify(j);
    });
    writeFileSync(
      named,
      [renamed[0], '{"data": {"usage": {"total_tokens": 12}}}', ...renamed.slice(1), '{"card_id": "x", "won": 0}'].join(
        '\n',
      ),
    );
    const report = scoreFiles([named], baselinesFile, 'toolkit-2026-04');
    expect(report.result.total).toBe(scoreFiles([slow], baselinesFile, 'toolkit-2026-04').result.total);
    expect(report.files[0].skipped.map((s) => s.line)).toEqual([2, lines.length + 2]);
  });

  it('scores against an official metadata.json without game_id when the recordings are of one game', () => {
    const meta = path.join(dir, 'metadata.json');
    writeFileSync(meta, JSON.stringify({ baseline_actions: [5, 15, 17, 16, 10, 25] }));
    // Paper: 1, 1, 0, 0, 0, 0 -> (1 + 2) / 21.
    expect(scoreFiles([slow], meta, 'paper').result.total).toBeCloseTo(3 / 21, 12);
  });

  it.each([
    [['--baselines', 'x.json'], /name at least one recording file/],
    [['a.jsonl'], /give the human baselines with --baselines <file>/],
    [['a.jsonl', '--baselines'], /--baselines needs a value/],
    [
      ['a.jsonl', '--baselines', 'b.json', '--preset', 'fast'],
      /unknown preset "fast"; presets: paper, toolkit-2026-04/,
    ],
    [['a.jsonl', '--baselines', 'b.json', '--verbose'], /unknown option "--verbose"/],
    [
      ['a.jsonl', '--baselines', 'study:42', '--data-dir', '/nonexistent-arc-studio-data'],
      /--baselines study:42: no database in \/nonexistent-arc-studio-data\/db/,
    ],
    [
      ['missing.recording.jsonl', '--baselines', 'b.json'],
      /recording "missing.recording.jsonl" does not exist or is not a file/,
    ],
  ])('refuses %j with a clear message', async (args, message) => {
    await expect(scoreCommand.run(args)).rejects.toThrow(message);
  });

  it('names an unreadable or missing baselines file and an empty recording; scores 0 a game the baselines lack, saying so at the top', () => {
    const notJson = path.join(dir, 'bad.json');
    writeFileSync(notJson, 'baseline_actions: [1, 2]');
    expect(() => scoreFiles([slow], notJson, 'paper')).toThrow(
      `baselines file "${notJson}": the baselines file is not JSON`,
    );
    expect(() => scoreFiles([slow], path.join(dir, 'none.json'), 'paper')).toThrow(
      /cannot read the baselines file ".*none\.json" \(no such file\)/,
    );
    const empty = path.join(dir, 'empty.recording.jsonl');
    writeFileSync(empty, '{"data": {"usage": 1}}\n');
    expect(() => scoreFiles([empty], baselinesFile, 'paper')).toThrow(
      /has no frame lines \(1 line skipped, the first: line 1 not a frame/,
    );
    const other = path.join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ game_id: 'ls20', baseline_actions: [3] }));
    const lacking = scoreFiles([slow], other, 'toolkit-2026-04');
    expect(lacking.result.total).toBe(0);
    expect(formatReport(lacking).split('\n').slice(0, 2)).toEqual([
      'Total RHAE 0.0000 over 1 game (preset toolkit-2026-04 v2): NOT a score over every level, the baselines do not cover them all:',
      '- push: the baselines have no game with this id; it scores 0 and counts in the total, as in the official scorer. Give baselines for push.',
    ]);
  });

  it('exits non-zero with the message on standard error, as the real binary', () => {
    const r = spawnCli(['score', slow, '--baselines', baselinesFile, '--preset', 'fast']);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^arc-studio score: unknown preset "fast"/);
  });
});
