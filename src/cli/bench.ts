import type { Command } from './main';

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
  replay: () => import('../bench/replay'),
  export: () => import('../bench/export'),
};

export const benchCommand: Command = {
  summary: 'Run the benchmarks and print their figures; --json prints one {"name","value","unit"} object per line.',
  usage: 'bench [--json] [suite...]',
  async run(args) {
    const json = args.includes('--json');
    const names = args.filter((a) => !a.startsWith('--'));
    const unknown = names.filter((n) => !(n in suites));
    if (unknown.length) throw new Error(`unknown suite ${unknown.join(', ')}; suites: ${Object.keys(suites).join(', ')}`);
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
