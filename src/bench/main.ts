/**
 * `npm run bench`: the benchmark suites, a program of their own beside `arc-studio` (the suites
 * import the server, the engine and the command's modules; nothing of the product imports them).
 * `npm run bench` compiles the server first and runs this from `dist-server/bench.mjs`, so the
 * figures are those of the code production runs.
 */
import { HelpRequest, UsageError, parseCommandArgs, usageError } from '../cli/args';
import type { BenchResult } from './result';

export type { BenchResult } from './result';

/** A benchmark suite: a module that yields figures. Suites are loaded lazily, by name. */
const suites: Record<string, () => Promise<{ run(): AsyncIterable<BenchResult> | Iterable<BenchResult> }>> = {
  grid: () => import('./grid'),
  ingest: () => import('./ingest'),
  game: () => import('./game'),
  'grid-latency': () => import('./gridLatency'),
  'game-latency': () => import('./gameLatency'),
  'arc3-latency': () => import('./arc3Latency'),
  'first-load': () => import('./firstLoad'),
  input: () => import('./input'),
  replay: () => import('./replay'),
  export: () => import('./export'),
  results: () => import('./results'),
  acks: () => import('./acks'),
  arc3: () => import('./arc3'),
  frames: () => import('./frames'),
  validate: () => import('./validate'),
  agents: () => import('./agents'),
  scale: () => import('./scale'),
  overload: () => import('./overload'),
  campaign: () => import('./campaign'),
  'campaign-policy': () => import('./campaignPolicy'),
};

const BENCH = {
  program: 'npm run bench',
  command: '--',
  usage: '-- [--json] [suite...]',
  summary: 'Run the benchmarks and print their figures; --json prints one {"name","value","unit"} object per line.',
  positionals: { name: 'suite...', help: `suites to run (default: all): ${Object.keys(suites).join(', ')}` },
  options: {
    json: { type: 'boolean', help: 'print one {"name","value","unit"} JSON object per line' },
  },
} as const;

/** Runs the suites `args` names (all by default); the exit code: 0 done, 1 a suite failed, 2 a wrong command line. */
export async function runBench(args: string[]): Promise<number> {
  try {
    const {
      values: { json },
      positionals: names,
    } = parseCommandArgs(BENCH, args);
    const unknown = names.filter((n) => !Object.hasOwn(suites, n));
    if (unknown.length)
      throw usageError(
        BENCH,
        `unknown suite ${unknown.map((n) => `"${n}"`).join(', ')}; suites: ${Object.keys(suites).join(', ')}.`,
      );
    for (const name of names.length ? names : Object.keys(suites)) {
      const suite = await suites[name]();
      for await (const r of suite.run()) {
        console.log(json ? JSON.stringify(r) : `${r.name.padEnd(56)} ${formatValue(r.value).padStart(12)} ${r.unit}`);
      }
    }
    return 0;
  } catch (e) {
    if (e instanceof HelpRequest) {
      console.log(e.text);
      return 0;
    }
    console.error(`npm run bench: ${(e as Error).message}`);
    return e instanceof UsageError ? 2 : 1;
  }
}

function formatValue(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
}

process.exitCode = await runBench(process.argv.slice(2));
