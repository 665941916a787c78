#!/usr/bin/env node
/**
 * Fails when a module in src/ imports itself through others.
 *
 * Reads every .ts/.tsx file under src/ with the TypeScript parser (no type checking, so it takes
 * about a second), resolves each static `import` and `export … from` with the project's own
 * compiler options, and reports every strongly connected component of the graph with one
 * concrete loop through it. `import type` counts too: a type-only loop still ties two layers
 * together, and the next value import along it would make a run-time cycle. Dynamic `import()`
 * does not count: it loads after both modules have run.
 *
 * Usage: node scripts/cycles.mjs [folder]   (default: src; run by `npm run lint`).
 * CYCLES_VERBOSE=1 also lists every file of each cycle.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? 'src');
const configPath = ts.findConfigFile(process.cwd(), ts.sys.fileExists, 'tsconfig.json');
const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configPath));

function listFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Static module specifiers of a file: imports and re-exports, type-only ones included. */
function specifiers(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found = [];
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      found.push(statement.moduleSpecifier.text);
    }
  }
  return found;
}

const files = listFiles(root);
const known = new Set(files);
const host = ts.createCompilerHost(options);
const graph = new Map();
for (const file of files) {
  const edges = new Set();
  for (const spec of specifiers(file)) {
    const resolved = ts.resolveModuleName(spec, file, options, host).resolvedModule?.resolvedFileName;
    if (resolved && known.has(path.resolve(resolved))) edges.add(path.resolve(resolved));
  }
  graph.set(file, [...edges].sort());
}

// Tarjan's strongly connected components, iterative so a deep tree cannot overflow the stack.
const index = new Map();
const low = new Map();
const onStack = new Set();
const stack = [];
const components = [];
let counter = 0;
for (const start of files) {
  if (index.has(start)) continue;
  const work = [[start, 0]];
  index.set(start, counter);
  low.set(start, counter);
  counter++;
  stack.push(start);
  onStack.add(start);
  while (work.length > 0) {
    const frame = work[work.length - 1];
    const [node, next] = frame;
    const edges = graph.get(node);
    if (next < edges.length) {
      frame[1]++;
      const to = edges[next];
      if (!index.has(to)) {
        index.set(to, counter);
        low.set(to, counter);
        counter++;
        stack.push(to);
        onStack.add(to);
        work.push([to, 0]);
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node), index.get(to)));
      }
      continue;
    }
    work.pop();
    if (work.length > 0) {
      const parent = work[work.length - 1][0];
      low.set(parent, Math.min(low.get(parent), low.get(node)));
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node).includes(node)) components.push(component);
    }
  }
}

/** The shortest loop from the component's first file back to itself, inside the component. */
function loopThrough(component) {
  const members = new Set(component);
  const first = [...component].sort()[0];
  const previous = new Map([[first, null]]);
  const queue = [first];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of graph.get(node)) {
      if (!members.has(to)) continue;
      if (to === first) {
        const loop = [first];
        for (let at = node; at !== null && at !== first; at = previous.get(at)) loop.splice(1, 0, at);
        return [...loop, first];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [first, first];
}

const relative = (file) => path.relative(process.cwd(), file);
if (components.length === 0) process.exit(0);
console.error(`${components.length} import cycle${components.length === 1 ? '' : 's'} in ${relative(root)}/:`);
for (const component of components) {
  if (process.env.CYCLES_VERBOSE) console.error(`\n  all of: ${component.map(relative).sort().join(' ')}`);
  console.error(`\n  ${component.length} files: ${loopThrough(component).map(relative).join('\n    -> ')}`);
}
console.error(
  '\nBreak each loop: move the shared part into a module both sides import, or turn the dependency around.',
);
process.exit(1);
