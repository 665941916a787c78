#!/usr/bin/env node
/**
 * The import check of `npm run lint`: fails when a module in src/ imports itself through others,
 * or when an import goes against the layers declared below.
 *
 * Reads every .ts/.tsx file under src/ with the TypeScript parser (no type checking, so it takes
 * about a second) and resolves each `import`, `export … from`, dynamic `import()` and type
 * `import('…')` with the project's own compiler options. Every kind counts: `import type` because
 * a type-only loop still ties two modules together and the next value import along it makes a
 * run-time cycle; dynamic `import()` because a module loaded later still depends on the one that
 * loads it (the benchmark command once loaded its suites that way while they imported it).
 *
 * Cycles: each strongly connected component of the graph is reported with one concrete loop.
 * Layers: {@link SRC_LAYERS} orders the folders of src/ and {@link SERVER_LAYERS} the features
 * of src/server/, lowest first. A module may import from its own folder or feature and from
 * lower layers only: never from a higher layer (upward) nor from another folder of its own
 * layer (sideways). Test files (`*.test.ts`, `*.test.tsx`) are exempt from the layers, as they
 * assemble whatever they test.
 *
 * Usage: node scripts/cycles.mjs [folder]   (default: src; run by `npm run lint`).
 * CYCLES_VERBOSE=1 also lists every file of each cycle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/**
 * The folders of src/, lowest first: the engine, the games written on it, the two programs built
 * on both (browser and server), the command that runs the server, and the benchmarks, which
 * measure all of them and which nothing imports.
 */
const SRC_LAYERS = [['core'], ['games'], ['client', 'server'], ['cli'], ['bench', 'prolificStandin']];

/**
 * The features of src/server/ (its folders, and the modules at its root by file name), lowest
 * first. Storage and the process's own plumbing at the bottom; then the features, each above
 * those it uses; the app that composes them and the server that runs it at the top, the tests' helpers
 * above those. A new folder goes into the layer above everything it imports.
 */
const SERVER_LAYERS = [
  ['store'],
  ['http.ts'],
  ['host', 'people', 'load.ts'],
  ['arc3'],
  ['collections', 'reference'],
  ['campaign'],
  ['study'],
  ['agents', 'grading', 'centre'],
  ['export'],
  ['digests'],
  ['results', 'questions', 'prolific'],
  ['app.ts'],
  ['serve.ts'],
  ['testing'],
];

/**
 * Imports against the layers that are known, each waiting on a move: the digest threads' and the
 * maintainer's types in the study's dependencies (`study/context.ts` `StudyDeps`), the campaign
 * routes adding up the results' digests, and `arc3` reading study definitions and the digest
 * threads. `from -> to`, paths below src/server/. The check fails on any other, and on an entry
 * here that no longer is one (delete it then).
 */
const KNOWN_UPWARD = new Set([
  'arc3/adminRuns.ts -> digests/pool.ts',
  'arc3/replayCheck.ts -> study/studies.ts',
  'campaign/routes.ts -> digests/studyDigests.ts',
  'study/context.ts -> digests/maintainer.ts',
  'study/context.ts -> digests/pool.ts',
]);

/**
 * Checks the imports of the TypeScript files under `dir`: loops, layers, KNOWN_UPWARD. The exit
 * code (0 when all holds, 1 when not) and what to print on standard error, saying what is wrong.
 */
export function checkImports(dir) {
  const root = path.resolve(dir);
  const said = [];
  const say = (line) => said.push(`${line}\n`);
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

  /** Module specifiers of a file: imports and re-exports, dynamic `import()` and type `import('…')`. */
  function specifiers(file) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const found = [];
    const visit = (node) => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      )
        found.push(node.moduleSpecifier.text);
      else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments.length > 0 &&
        ts.isStringLiteralLike(node.arguments[0])
      )
        found.push(node.arguments[0].text);
      else if (
        ts.isImportTypeNode(node) &&
        ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      )
        found.push(node.argument.literal.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
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

  /**
   * Where `file` sits in `layers` (folder names, or file names for modules directly in `dir`):
   * its unit's name and layer, null outside `dir` or for a file directly in `dir` that no layer
   * names, undefined for a folder no layer names.
   */
  function placeIn(dir, layers, file) {
    const parts = path.relative(dir, file).split(path.sep);
    if (parts[0] === '..' || path.isAbsolute(parts[0])) return null;
    const name = parts[0];
    const layer = layers.findIndex((names) => names.includes(name));
    if (layer >= 0) return { name, layer };
    return parts.length === 1 ? null : undefined;
  }

  const isTest = (file) => /\.test\.tsx?$/.test(file);
  const layerProblems = [];
  const unplaced = new Set();
  const knownSeen = new Set();
  const serverDir = path.join(root, 'server');
  for (const [from, tos] of graph) {
    if (isTest(from)) continue;
    for (const [dir, layers, listName] of [
      [root, SRC_LAYERS, 'SRC_LAYERS'],
      [serverDir, SERVER_LAYERS, 'SERVER_LAYERS'],
    ]) {
      const a = placeIn(dir, layers, from);
      if (a === undefined)
        unplaced.add(`${relative(path.join(dir, path.relative(dir, from).split(path.sep)[0]))} (${listName})`);
      if (!a) continue;
      for (const to of tos) {
        const b = placeIn(dir, layers, to);
        if (b === undefined)
          unplaced.add(`${relative(path.join(dir, path.relative(dir, to).split(path.sep)[0]))} (${listName})`);
        if (!b || b.name === a.name || b.layer < a.layer) continue;
        const edge = `${path.relative(dir, from)} -> ${path.relative(dir, to)}`.split(path.sep).join('/');
        if (dir === serverDir && KNOWN_UPWARD.has(edge)) {
          knownSeen.add(edge);
          continue;
        }
        const way = b.layer > a.layer ? 'upward' : 'sideways';
        layerProblems.push(
          `${relative(from)} imports ${relative(to)}: ${way}, from ${a.name} to ${b.name} (${listName})`,
        );
      }
    }
  }
  // An entry is stale once its import is gone: from a file that is gone too only in the project's own
  // tree (a folder of test files holds none of them).
  const projectTree = root === path.resolve('src');
  const staleKnown = [...KNOWN_UPWARD].filter(
    (e) => !knownSeen.has(e) && (projectTree || known.has(path.join(serverDir, e.split(' -> ')[0]))),
  );

  if (components.length === 0 && layerProblems.length === 0 && unplaced.size === 0 && staleKnown.length === 0)
    return { code: 0, stderr: '' };
  if (components.length > 0) {
    say(`${components.length} import cycle${components.length === 1 ? '' : 's'} in ${relative(root)}/:`);
    for (const component of components) {
      if (process.env.CYCLES_VERBOSE) say(`\n  all of: ${component.map(relative).sort().join(' ')}`);
      say(`\n  ${component.length} files: ${loopThrough(component).map(relative).join('\n    -> ')}`);
    }
    say('\nBreak each loop: move the shared part into a module both sides import, or turn the dependency around.');
  }
  if (layerProblems.length > 0) {
    say(`\n${layerProblems.length} import${layerProblems.length === 1 ? '' : 's'} against the layers:`);
    for (const p of layerProblems) say(`  ${p}`);
    say(
      '\nA module imports only from lower layers (scripts/cycles.mjs declares them): move the shared part down, or pass it in from above.',
    );
  }
  if (unplaced.size > 0)
    say(
      `\nIn no layer: ${[...unplaced].sort().join(', ')}. Add each to the layer list named, above everything it imports.`,
    );
  if (staleKnown.length > 0)
    say(
      `\nKNOWN_UPWARD in scripts/cycles.mjs lists imports that are gone: ${staleKnown.join(', ')}. Delete them from it.`,
    );
  return { code: 1, stderr: said.join('') };
}

// Run as a command (`node scripts/cycles.mjs [dir]`, `npm run lint`): src/ by default.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { code, stderr } = checkImports(process.argv[2] ?? 'src');
  process.stderr.write(stderr);
  process.exitCode = code;
}
