/**
 * `arc-studio restore FILE`: a study's archive (the export format `archive`) restored into the
 * store `serve` uses (PGlite in the data folder, or PostgreSQL with DATABASE_URL), whole or, with
 * `--merge`, only what that store lacks.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from './command';
import { parseCommandArgs, usageError } from './args';
import { openStore, redact } from '../server/store/open';
import { restoreStudy } from '../server/export/restore';

const RESTORE = {
  command: 'restore',
  usage: 'restore FILE [--merge] [--data-dir DIR]',
  summary:
    'Restore a study\'s archive (written by the export format "archive") into the serve store: PGlite in --data-dir, or DATABASE_URL. Refuses a study the store has already, unless --merge, which adds only the rows it lacks. Every part is checked against the archive\'s checksums first; nothing is written from a damaged archive.',
  positionals: { name: 'FILE', help: 'the archive (.zip) to restore' },
  options: {
    merge: {
      type: 'boolean',
      help: 'the study is on this server already: add the sessions, events and runs it lacks, never a row twice',
    },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      default: '.arc-studio',
      help: 'the data folder "arc-studio serve" uses (made if new); ignored when DATABASE_URL is set',
    },
  },
} as const;

export const restoreCommand: Command = {
  summary: RESTORE.summary,
  usage: RESTORE.usage,
  async run(args) {
    const { values, positionals } = parseCommandArgs(RESTORE, args);
    if (positionals.length !== 1)
      throw usageError(
        RESTORE,
        positionals.length ? 'give one archive at a time.' : 'FILE is missing: name the archive to restore.',
      );
    const file = path.resolve(positionals[0]);
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile()) throw new Error(`no archive at ${file}: give the path of the file the export wrote.`);
    const databaseUrl = process.env.DATABASE_URL || undefined;
    const dataDir = path.resolve(values['data-dir']);
    const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir });
    const where = databaseUrl ? `PostgreSQL at ${redact(databaseUrl)}` : `PGlite in ${path.join(dataDir, 'db')}`;
    try {
      const report = await restoreStudy(store, file, { merge: values.merge });
      const lines = Object.entries(report.rows)
        .filter(([, n]) => n.added + n.present > 0)
        .map(([table, n]) => `  ${table}: ${n.added} added${n.present ? `, ${n.present} there already` : ''}`);
      console.log(`Restored study "${report.study}" into ${where}:\n${lines.join('\n')}`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
