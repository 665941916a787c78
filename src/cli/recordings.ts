/**
 * `arc-studio recordings import`: reference recordings (the official toolkit's `.recording.jsonl`,
 * one run per file) imported as a named group of a game into the serve store, with the same
 * checks as the studio's import (`server/reference/importer.ts`): every line read strictly, the
 * game's version, and every run played again on the engine. No size limit: files are read a
 * chunk at a time.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from './command';
import { parseCommandArgs, usageError } from './args';
import { arc3GameDirs } from './games';
import { openServeStore, poolReplayer } from './runStore';
import { fileLines } from './score';
import type { ServerGameInfo } from '../core/game/serverGame';
import { gameVersion, readGameFolder } from '../server/arc3/gameCode';
import { Arc3Pool } from '../server/arc3/pool';
import { probe } from '../server/arc3/probe';
import { importReferenceGroup } from '../server/reference/importer';

const RECORDINGS = {
  command: 'recordings import',
  usage: 'recordings import --game ID --group NAME [--data-dir DIR] [--arc3-games DIR]... <file.recording.jsonl>...',
  summary:
    "Import the official toolkit's recordings (one run per file) as a reference group of a game, into the serve store (PGlite in --data-dir, or DATABASE_URL): every line checked, every run played again on the game's files; nothing is imported unless all pass. The studio shows the group beside the game's participants; an agent's scorecard tagged reference:NAME is scored against it.",
  positionals: { name: 'file.recording.jsonl...', help: "the toolkit's recordings, one run each" },
  options: {
    game: { type: 'string', value: 'ID', help: 'the game, as the server runs it (e.g. ls20-9607627b)' },
    group: { type: 'string', value: 'NAME', help: "the group's name (letters, digits, spaces, _ . -)" },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'the data folder "arc-studio serve" uses; ignored when DATABASE_URL is set',
    },
    'arc3-games': {
      type: 'string',
      value: 'DIR',
      multiple: true,
      help: 'the folders "arc-studio serve" runs the arcengine games from (default: ARC_STUDIO_ARC3_GAMES)',
    },
  },
} as const;

export const recordingsCommand: Command = {
  summary: RECORDINGS.summary,
  usage: RECORDINGS.usage,
  async run(args) {
    const [sub, ...rest] = args;
    if (sub !== 'import')
      throw usageError(
        RECORDINGS,
        sub ? `unknown subcommand "${sub}"; use "recordings import".` : 'say "recordings import".',
      );
    const { values, positionals } = parseCommandArgs(RECORDINGS, rest);
    if (!values.game) throw usageError(RECORDINGS, 'name the game with --game ID.');
    if (!values.group) throw usageError(RECORDINGS, 'name the group with --group NAME.');
    if (!positionals.length) throw usageError(RECORDINGS, 'give the .recording.jsonl files to import.');
    for (const f of positionals)
      if (!statSync(f, { throwIfNoEntry: false })?.isFile())
        throw new Error(`${f} is not a file; give recording files.`);
    const dirs = arc3GameDirs(values['arc3-games']);
    if (!dirs.length)
      throw new Error(
        'the runs are played again on the game: give the folders "arc-studio serve" runs the games from with --arc3-games DIR (or ARC_STUDIO_ARC3_GAMES).',
      );
    const found = await probe();
    if (!found.ok) throw new Error(`arcengine games cannot run: ${found.message}`);
    const { store, dataDir, where } = await openServeStore(values['data-dir']);
    const pool = new Arc3Pool({ gameDirs: dirs, size: 1, timeoutMs: 60_000 });
    try {
      const games = new Map<string, ServerGameInfo>();
      for (const g of await pool.list()) {
        const version = gameVersion(g.game_id, (await readGameFolder(g.dir)).hash);
        games.set(g.game_id, {
          id: g.game_id,
          title: g.title,
          levels: null,
          fps: g.default_fps,
          tags: g.tags,
          source: 'arcengine',
          engine: `arcengine ${found.arcengine}`,
          baselineActions: g.baseline_actions,
          version,
        });
      }
      const out = await importReferenceGroup(
        {
          references: store.references,
          game: (id) => {
            // A short id names the game when one version of it is mounted.
            const named = [...games.values()].filter((g) => g.id.split('-')[0] === id);
            return games.get(id) ?? (named.length === 1 ? named[0] : null);
          },
          gameIds: () => [...games.keys()],
          replayer: () => ({ replayer: poolReplayer(store, pool, dataDir), release: () => Promise.resolve() }),
          now: Date.now,
        },
        values.game,
        values.group,
        positionals.map((f) => ({ name: path.basename(f), lines: fileLines(f) })),
        'cli',
      );
      if ('refused' in out) {
        console.error(`arc-studio recordings import: ${out.refused.message}`);
        for (const p of out.refused.problems ?? [])
          console.error(`  ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`);
        return 1;
      }
      const g = out.group;
      console.log(
        `Imported reference group "${g.name}" of ${g.game} (${g.version}) into ${where}: ${g.recordings} recordings.`,
      );
      for (const l of g.levels)
        console.log(
          `  level ${l.level}: ${l.completed} of ${l.reached} completed it${l.actions.median === null ? '' : `, median ${l.actions.median} actions`}`,
        );
      return 0;
    } finally {
      await pool.stop();
      await store.close();
    }
  },
};
