/** One figure a benchmark suite measured. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}
