import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { estimateSeconds, reportedSeconds } from './vitest-sequencer';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('the pure project in lint (eslint.config.js)', () => {
  const eslint = new ESLint({ cwd: ROOT });
  /** The `no-restricted-imports` messages ESLint gives `text` as the file at `file`. */
  const restricted = async (file: string, text: string) => {
    const [result] = await eslint.lintText(text, { filePath: path.join(ROOT, file) });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  };
  const DATABASE_AND_SOCKET = [
    "import { PGlite } from '@electric-sql/pglite';",
    "import pg from 'pg';",
    "import { createServer } from 'node:http';",
    "import type { AddressInfo } from 'node:net';",
    "import { openStore } from '../../server/store/open';",
    'export const used = [PGlite, pg, createServer, openStore] as unknown as AddressInfo;',
    '',
  ].join('\n');

  it('fails a test of the browser code, the engine or a game that opens a database or a socket', async () => {
    for (const file of ['src/client/study/probe.test.ts', 'src/core/grid/probe.test.ts', 'src/games/probe.test.ts']) {
      const messages = await restricted(file, DATABASE_AND_SOCKET);
      expect(messages, file).toHaveLength(5);
      expect(messages[0]).toMatch(/pure project .* does no I\/O: .* \*\.own\.test\.ts/);
    }
  });

  it('lets the same file be when it has a process of its own, or is a server test', async () => {
    expect(await restricted('src/client/study/probe.own.test.ts', DATABASE_AND_SOCKET)).toEqual([]);
    expect(await restricted('src/server/study/probe.test.ts', DATABASE_AND_SOCKET)).toEqual([]);
  });
});

describe('the test files order (scripts/vitest-sequencer.ts)', () => {
  const folders: string[] = [];
  afterAll(async () => {
    await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
  });

  it("takes each file's seconds from the last run's report, the newer report first", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'sequencer-'));
    folders.push(root);
    await mkdir(path.join(root, '.tmp/test-reports'), { recursive: true });
    const result = (file: string, seconds: number) => ({
      name: path.join(root, file),
      startTime: 1_000,
      endTime: 1_000 + seconds * 1000,
    });
    await writeFile(
      path.join(root, '.tmp/test-reports/vitest.last.json'),
      JSON.stringify({ testResults: [result('src/a.test.ts', 40), result('src/b.test.ts', 3)] }),
    );
    await writeFile(
      path.join(root, '.tmp/test-reports/vitest.json'),
      JSON.stringify({ testResults: [result('src/a.test.ts', 12)] }),
    );
    expect(reportedSeconds(root)).toEqual(
      new Map([
        ['src/a.test.ts', 12],
        ['src/b.test.ts', 3],
      ]),
    );
  });

  it('orders nothing from a report cut short, and gives nothing where there is no report', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'sequencer-'));
    folders.push(root);
    expect(reportedSeconds(root).size).toBe(0);
    await mkdir(path.join(root, '.tmp/test-reports'), { recursive: true });
    await writeFile(path.join(root, '.tmp/test-reports/vitest.json'), '{"testResults": [{"na');
    expect(reportedSeconds(root).size).toBe(0);
  });

  it('places a file without a record by its size at the median rate of the recorded ones', () => {
    const files = [
      { file: 'a', bytes: 1_000 },
      { file: 'b', bytes: 2_000 },
      { file: 'c', bytes: 4_000 },
      { file: 'new', bytes: 3_000 },
    ];
    const recorded = new Map([
      ['a', 1],
      ['b', 8],
      ['c', 12],
    ]);
    // Rates 0.001, 0.003 and 0.004 s per byte: the median, 0.003, gives the new file 9 s.
    expect(estimateSeconds(files, recorded)).toEqual(
      new Map([
        ['a', 1],
        ['b', 8],
        ['c', 12],
        ['new', 9],
      ]),
    );
  });

  it('orders a fresh clone, with no record at all, by size', () => {
    const estimated = estimateSeconds(
      [
        { file: 'small', bytes: 10 },
        { file: 'large', bytes: 500 },
      ],
      new Map(),
    );
    expect(estimated.get('large')!).toBeGreaterThan(estimated.get('small')!);
  });
});
