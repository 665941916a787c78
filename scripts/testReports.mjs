/**
 * What `npm test` reads from the test runners' JSON reports (scripts/test.mjs prints it at the end
 * of the run, where the tail of a long log shows it): seconds per file, and the tests that failed.
 */
import path from 'node:path';

/** Seconds per Vitest file: [file, seconds][]. */
export function vitestFiles(report) {
  return report.testResults.map((t) => [path.relative(process.cwd(), t.name), (t.endTime - t.startTime) / 1000]);
}

/** Calls `visit(spec, file, titles)` for every spec of a Playwright report, with its file and describe titles. */
function walkPlaywright(report, visit) {
  const walk = (suite, file, titles) => {
    const f = suite.file ?? file;
    for (const spec of suite.specs ?? []) visit(spec, f, titles);
    // The top suite is the file, titled by its name; describe blocks below it add their titles.
    for (const s of suite.suites ?? []) walk(s, f, s.title && s.title !== f ? [...titles, s.title] : titles);
  };
  for (const s of report.suites ?? []) walk(s, s.file, []);
}

/** Seconds per Playwright file (every attempt of every test): [file, seconds][]. */
export function playwrightFiles(report) {
  const seconds = new Map();
  walkPlaywright(report, (spec, file) => {
    for (const t of spec.tests)
      for (const r of t.results) seconds.set(file, (seconds.get(file) ?? 0) + r.duration / 1000);
  });
  return [...seconds];
}

/** Vitest's failed tests: [file, title, error][]; a file that failed outside any test (an import, a hook) as itself. */
export function vitestFailures(report) {
  const out = [];
  for (const t of report.testResults) {
    const file = path.relative(process.cwd(), t.name);
    const failed = t.assertionResults.filter((a) => a.status === 'failed');
    for (const a of failed) out.push([file, a.fullName ?? a.title, a.failureMessages?.[0] ?? '']);
    if (!failed.length && t.status === 'failed') out.push([file, '(the file itself)', t.message ?? '']);
  }
  return out;
}

/** Playwright's tests that did not end as expected (failed, timed out, or passed only on a retry): [file:line, title, error][]. */
export function playwrightFailures(report) {
  const out = [];
  walkPlaywright(report, (spec, file, titles) => {
    for (const t of spec.tests) {
      if (t.status === 'expected' || t.status === 'skipped') continue;
      const error = t.results.flatMap((r) => r.errors ?? [])[0];
      const project = t.projectName ? `[${t.projectName}] ` : '';
      out.push([`${file}:${spec.line}`, project + [...titles, spec.title].join(' › '), error?.message ?? t.status]);
    }
  });
  return out;
}

/** The first lines of an error, without colour codes, each at most `width` characters. */
export function errorHead(error, lines = 6, width = 300) {
  return (
    error
      // eslint-disable-next-line no-control-regex
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, lines)
      .map((l) => l.slice(0, width))
  );
}
