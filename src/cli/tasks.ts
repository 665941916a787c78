import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from './command';
import { parseCommandArgs, selectSubcommand, usageError } from './args';
import { listTaskFiles } from '../server/collections/collections';
import { formatProblem, parseTaskText } from '../core/formats/arcTask';

export interface CheckResult {
  valid: number;
  invalid: { file: string; reason: string }[];
}

/** Validates every task file named or found below the folders named. */
export async function checkTaskPaths(paths: string[]): Promise<CheckResult> {
  const result: CheckResult = { valid: 0, invalid: [] };
  for (const p of paths) {
    const info = await stat(p).catch(() => null);
    if (!info) {
      result.invalid.push({
        file: p,
        reason: 'no such file or folder; check the path, or name a task .json file or a folder that holds them',
      });
      continue;
    }
    const files = info.isDirectory() ? (await listTaskFiles(p)).map((f) => path.join(p, f)) : [p];
    if (info.isDirectory() && files.length === 0) {
      result.invalid.push({ file: p, reason: 'folder holds no .json task files' });
      continue;
    }
    for (const file of files) {
      const text = await readFile(file, 'utf8').catch((e: Error) => e);
      if (text instanceof Error) {
        result.invalid.push({ file, reason: `cannot be read (${text.message})` });
        continue;
      }
      const parsed = parseTaskText(text);
      if (parsed.ok) result.valid++;
      else result.invalid.push({ file, reason: parsed.problems.map(formatProblem).join('; ') });
    }
  }
  return result;
}

const CHECK = {
  command: 'tasks check',
  usage: 'tasks check <file|dir>...',
  summary:
    'Validate ARC task JSON files: one line per invalid file with its reason, then "N valid, M invalid". Exit 0 only when all are valid.',
  positionals: { name: '<file|dir>...', help: 'task .json files, or folders searched for them' },
  options: {},
} as const;

export const tasksCommand: Command = {
  summary: CHECK.summary,
  usage: CHECK.usage,
  async run(args) {
    const { rest } = selectSubcommand({ command: 'tasks', usage: CHECK.usage }, { check: CHECK }, args);
    const { positionals: paths } = parseCommandArgs(CHECK, rest);
    if (paths.length === 0) throw usageError(CHECK, 'name at least one task file or folder.');
    const r = await checkTaskPaths(paths);
    for (const { file, reason } of r.invalid) console.log(`${file}: ${reason}`);
    console.log(`${r.valid} valid, ${r.invalid.length} invalid`);
    return r.invalid.length === 0 ? 0 : 1;
  },
};
