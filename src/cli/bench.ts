import type { Command } from './command';
import { parseCommandArgs, usageError } from './args';

/** One measured figure. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

/** A benchmark suite: a module that yields figures. Suites are loaded lazily, by name. */
const suites: Record<string, () => Promise<{ run(): AsyncIterable<BenchResult> | Iterable<BenchResult> }>> = {
  grid: () => import('../bench/grid'),
  ingest: () => import('../bench/ingest'),
  game: () => import('../bench/game'),
  'grid-latency': () => import('../bench/gridLatency'),
  'game-latency': () => import('../bench/gameLatency'),
  'arc3-latency': () => import('../bench/arc3Latency'),
  'first-load': () => import('../bench/firstLoad'),
  input: () => import('../bench/input'),
  replay: () => import('../bench/replay'),
  export: () => import('../bench/export'),
  results: () => import('../bench/results'),
  acks: () => import('../bench/acks'),
  arc3: () => import('../bench/arc3'),
  frames: () => import('../bench/frames'),
  validate: () => import('../bench/validate'),
  agents: () => import('../bench/agents'),
  scale: () => import('../bench/scale'),
  overload: () => import('../bench/overload'),
  campaign: () => import('../bench/campaign'),
};

const BENCH = {
  command: 'bench',
  usage: 'bench [--json] [suite...]',
  summary: 'Run the benchmarks and print their figures; --json prints one {"name","value","unit"} object per line.',
  positionals: { name: 'suite...', help: `suites to run (default: all): ${Object.keys(suites).join(', ')}` },
  options: {
    json: { type: 'boolean', help: 'print one {"name","value","unit"} JSON object per line' },
  },
} as const;

export const benchCommand: Command = {
  summary: BENCH.summary,
  usage: BENCH.usage,
  async run(args) {
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
  },
};

function formatValue(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
}
