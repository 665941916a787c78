/**
 * A study's results, derived from its sessions' event logs and server-judged submissions: who
 * took part and how far they got, per grid task the solve rates and effort, per game level the
 * funnel, effort and the human baselines under every preset, and where players clicked.
 *
 * Everything here is a pure function of stored data, so the figures can be rebuilt at any time
 * from the log (the source of truth). The definitions are spelled out on each output type
 * (resultTypes.ts) and in docs/api.md ("Study results"); a session's part is its digest
 * (digest.ts), which this module adds up.
 *
 * Who counts:
 * - Practice items and pages never count.
 * - A designer's playtest session (`params.mode === "playtest"`, or a `playtest` flag) is listed
 *   among the participants with `playtest: true` and counts toward nothing else.
 * - A session a researcher excluded (`excludedAt` set) is listed with `excluded: true` and
 *   counts toward nothing else either: no figure, funnel, baseline or first-time-player slot.
 * - Only sessions of the stage asked for (`stage`, e.g. `main`) are listed and counted; the
 *   others (a pilot's) are left out as if they were not there.
 * - Game figures come only from logs that the server's replay verifies (`verifyGameLog`); a log
 *   that does not replay flags its session (`game_log_unverified:<item>`) and is left out of
 *   every level figure and baseline.
 * - Game figures are kept per game version (levels may differ between versions): each game item
 *   has a row for the server's current version and one for each other version its logs were
 *   recorded on. A server-run game's version is the code its run was opened on, as the server
 *   recorded it (`gameRuns`, `<game id>@<code hash>`), so a game edited mid-study shows its old
 *   and new code apart. A log of a version the server cannot run flags its session
 *   (`game_log_other_version:<item>`) and is counted in its version's row as `otherVersion`.
 * - Task figures are kept per task version likewise: the content hash of the task each judged
 *   submission was judged against (`taskHash`), so an edited task file shows its versions apart.
 * - When an item was played on more than one version (with counted players on at least two), a
 *   row of all versions (`allVersions: true`, `version: null`) comes before the rows by version.
 */
import type { TaskItem } from '../study/schema';
import { effectiveState } from '../study/rules';
import { MAIN_STAGE, inStage } from '../study/stages';
import { GRID_TOOLS } from '../log/gridPlayer';
import {
  BASELINE_PRESETS,
  BASELINE_PRESET_NAMES,
  baselineOf,
  computeBaselines,
  type BaselinePresetName,
  type PlayerLevels,
} from '../scoring/baselines';
import { distribution } from './dist';
import { crossSessionSignals, type SessionPrints } from './signals';
import { mountedVersion, type MountedGame } from './versions';
import {
  addQuestion,
  newQuestionAcc,
  questionGroups,
  questionPlaces,
  questionResult,
  type QuestionAcc,
} from './questions';
import { digestSession, testIndicesOf } from './digest';
import {
  isPlaytest,
  type BaselineResult,
  type GameDigest,
  type GameResult,
  type LevelResultRow,
  type ParticipantResult,
  type PlayerDetail,
  type ResultsInput,
  type StudyResults,
  type TaskDigest,
  type TaskResult,
  type ToolName,
} from './resultTypes';

export type { Dist } from './dist';
export type {
  GradeLookup,
  QuestionFacts,
  QuestionGrade,
  QuestionGroupResult,
  QuestionItemDigest,
  QuestionResult,
  OptionCount,
  QuestionType,
} from './questions';
export * from './resultTypes';
export { digestSession, gameItemDigest, testIndicesOf, newTaskTally, addTaskEvent, taskDigestOf } from './digest';
export type { TaskTally } from './digest';
/** The grid-changing event kinds (core/study/actions.ts): each is one action of a task. */
export { GRID_ACTION_KINDS } from '../study/actions';

const TOOL_NAMES: readonly ToolName[] = GRID_TOOLS;

interface TaskAcc {
  readonly item: TaskItem;
  /** The task version counted here; null: every version. */
  readonly version: string | null;
  tests: number;
  participants: number;
  attempted: number;
  solvedWithin: [number, number, number];
  firstAction: number[];
  solve: number[];
  actions: number[];
  tools: Record<ToolName, number>;
  toolUses: Record<ToolName, number>;
}

interface GameAcc {
  readonly item: string;
  readonly game: string;
  readonly version: string | null;
  players: Map<string, PlayerDetail>;
  unverified: number;
  otherVersion: number;
  /** level (1-based) -> "x,y" -> count */
  clicks: Map<number, Map<string, number>>;
}

const zeroTools = (): Record<ToolName, number> =>
  Object.fromEntries(TOOL_NAMES.map((t) => [t, 0])) as Record<ToolName, number>;

/**
 * The results of one study. See the module comment for who counts and each output type for
 * the definitions.
 * @throws Error when a session ran a study version missing from `input.versions`.
 */
export function studyResults(input: ResultsInput): StudyResults {
  const defs = new Map(input.versions.map((v) => [v.version, v.definition]));
  const versions = [...defs.keys()].sort((a, b) => a - b);
  const shownVersion = input.version ?? versions[versions.length - 1];
  const shown = defs.get(shownVersion);
  if (!shown)
    throw new Error(
      `Study ${input.study.id} has no version ${shownVersion}; its versions are ${versions.join(', ') || 'none'}.`,
    );

  // Items in the order of the newest version first, then any that only older versions have.
  const tasks = new Map<string, TaskAcc>();
  /** By task key: the figures of each task version (content hash) its submissions recorded. */
  const taskVersions = new Map<string, Map<string, TaskAcc>>();
  const gamesAcc = new Map<string, GameAcc>();
  /** By game item (item and game): the figures of every version together. */
  const allGames = new Map<string, GameAcc>();
  const taskKey = (i: TaskItem) => `${i.id}\u0000${i.collection}\u0000${i.task}`;
  const itemKey = (id: string, game: string) => `${id}\u0000${game}`;
  const gameKey = (id: string, game: string, version: string | null) => `${itemKey(id, game)}\u0000${version ?? ''}`;
  const mounted = (game: string) => mountedVersion(input.games[game], game);
  const gameAcc = (id: string, game: string, version: string | null): GameAcc => {
    let acc = gamesAcc.get(gameKey(id, game, version));
    if (!acc) gamesAcc.set(gameKey(id, game, version), (acc = newGameAcc(id, game, version)));
    return acc;
  };
  const questionAccs = new Map<string, QuestionAcc>();
  const questionKey = (id: string, testIndex: number, collection: string, question: string) =>
    `${id}\u0000${testIndex}\u0000${collection}\u0000${question}`;
  const listed = input.version === null ? [...versions].reverse() : [input.version];
  for (const v of listed) {
    for (const item of defs.get(v)!.items) {
      if (item.kind === 'task' && !item.practice && !tasks.has(taskKey(item))) {
        tasks.set(
          taskKey(item),
          newTaskAcc(item, null, testIndicesOf(item, input.testCount(item.collection, item.task), []).length),
        );
      }
      if (item.kind === 'game' && !item.practice) gameAcc(item.id, item.game, mounted(item.game));
      if (item.kind === 'question' && !item.practice) {
        for (const place of questionPlaces(item)) {
          const key = questionKey(item.id, place.testIndex, place.collection, place.question);
          if (!questionAccs.has(key)) questionAccs.set(key, newQuestionAcc(item.id, place));
        }
      }
    }
  }

  const participants: ParticipantResult[] = [];
  const printed: { id: string; prints?: SessionPrints }[] = [];
  const sessions = input.sessions
    .filter((s) => input.version === null || s.session.studyVersion === input.version)
    .filter((s) => inStage(s.session.stage, input.stage ?? null))
    .sort((a, b) => a.session.createdAt - b.session.createdAt || a.session.id.localeCompare(b.session.id));
  for (const data of sessions) {
    const { session } = data;
    const def = defs.get(session.studyVersion);
    if (!def)
      throw new Error(
        `Session ${session.id} ran version ${session.studyVersion} of study ${input.study.id}, which is not stored.`,
      );
    const digest =
      'digest' in data
        ? data.digest
        : digestSession(def, session, data.events, data.submissions, input.testCount, input.replay);
    const playtest = isPlaytest(session);
    const excluded = session.excludedAt !== undefined && session.excludedAt !== null;
    participants.push({
      sessionId: session.id,
      params: session.params,
      studyVersion: session.studyVersion,
      stage: session.stage ?? MAIN_STAGE,
      state: effectiveState(session, def, input.now),
      createdAt: session.createdAt,
      finishedAt: session.finishedAt,
      itemsDone: digest.itemsDone,
      itemsTotal: digest.itemsTotal,
      activeMs: digest.activeMs,
      actions: digest.actions,
      flags: [...new Set([...session.flags, ...digest.flags])],
      playtest,
      excluded,
      excludedReason: excluded ? (session.excludedReason ?? null) : null,
    });
    if (!playtest) printed.push({ id: session.id, prints: digest.prints });
    if (playtest || excluded) continue;

    for (const item of def.items) {
      if (item.kind === 'task' && !item.practice) {
        const key = taskKey(item);
        const acc = tasks.get(key);
        const part = digest.tasks[item.id];
        if (!acc || !part) continue;
        addTask(acc, part);
        if (part.version) {
          let byVersion = taskVersions.get(key);
          if (!byVersion) taskVersions.set(key, (byVersion = new Map()));
          let v = byVersion.get(part.version);
          if (!v) byVersion.set(part.version, (v = newTaskAcc(item, part.version, acc.tests)));
          addTask(v, part);
        }
      } else if (item.kind === 'game' && !item.practice) {
        const part = digest.games[item.id];
        if (!gamesAcc.has(gameKey(item.id, item.game, mounted(item.game))) || !part) continue;
        // A server-run game keeps its id when its code changes: the run's record names the code.
        const version = input.gameRuns?.get(session.id)?.[item.id]?.version ?? part.version ?? mounted(item.game);
        let all = allGames.get(itemKey(item.id, item.game));
        if (!all) allGames.set(itemKey(item.id, item.game), (all = newGameAcc(item.id, item.game, null)));
        // First-time players only: a participant (by recruitment id) counts with their earliest
        // session; sessions are visited oldest first. The exported baselines count the same way.
        const who = session.params.PROLIFIC_PID || session.params.workerId || session.id;
        for (const acc of [gameAcc(item.id, item.game, version), all]) addGame(acc, part, who);
      } else if (item.kind === 'question' && !item.practice) {
        const part = digest.questions?.[item.id];
        if (!part) continue;
        for (const place of questionPlaces(item)) {
          const acc = questionAccs.get(questionKey(item.id, place.testIndex, place.collection, place.question));
          if (acc) addQuestion(acc, part, session.id, input.grades);
        }
      }
    }
  }

  // Signals across sessions (identical answers, actions, descriptions) join each one's own flags.
  const cross = crossSessionSignals(printed);
  for (const p of participants) for (const f of cross.get(p.sessionId) ?? []) if (!p.flags.includes(f)) p.flags.push(f);

  const questions = [...questionAccs.values()].map((acc) =>
    questionResult(acc, input.questionFacts?.(acc.place.collection, acc.place.question) ?? null),
  );

  return {
    study: { id: input.study.id, title: shown.title, versions, version: input.version, stage: input.stage ?? null },
    participants,
    tasks: [...tasks].flatMap(([key, all]) => {
      const byVersion = [...(taskVersions.get(key)?.values() ?? [])];
      if (byVersion.length < 2) return [taskResult({ ...all, version: byVersion[0]?.version ?? null }, false)];
      return [taskResult(all, true), ...byVersion.map((v) => taskResult(v, false))];
    }),
    games: gameRows(gamesAcc, allGames).map(([g, allVersions]) => gameResult(g, input.games[g.game], allVersions)),
    questions,
    questionGroups: questionGroups(questions),
  };
}

function addTask(acc: TaskAcc, part: TaskDigest): void {
  acc.participants++;
  if (!part.attempted) return;
  acc.attempted++;
  for (let k = 0; k < 3; k++) if (part.solvedWithin[k]) acc.solvedWithin[k]++;
  acc.actions.push(part.actions);
  if (part.firstActionMs !== null) acc.firstAction.push(part.firstActionMs);
  if (part.solveMs !== null) acc.solve.push(part.solveMs);
  for (const [tool, n] of Object.entries(part.toolUses) as [ToolName, number][]) {
    acc.toolUses[tool] += n;
    if (n > 0) acc.tools[tool]++;
  }
}

function newTaskAcc(item: TaskItem, version: string | null, tests: number): TaskAcc {
  return {
    item,
    version,
    tests,
    participants: 0,
    attempted: 0,
    solvedWithin: [0, 0, 0],
    firstAction: [],
    solve: [],
    actions: [],
    tools: zeroTools(),
    toolUses: zeroTools(),
  };
}

function taskResult(acc: TaskAcc, allVersions: boolean): TaskResult {
  const rate = (n: number) => (acc.attempted ? n / acc.attempted : 0);
  return {
    item: acc.item.id,
    collection: acc.item.collection,
    task: acc.item.task,
    version: acc.version,
    allVersions,
    tests: acc.tests,
    participants: acc.participants,
    attempted: acc.attempted,
    solvedWithin: [...acc.solvedWithin],
    solveRate: [rate(acc.solvedWithin[0]), rate(acc.solvedWithin[1]), rate(acc.solvedWithin[2])],
    timeToFirstActionMs: distribution(acc.firstAction),
    timeToSolveMs: distribution(acc.solve),
    actions: distribution(acc.actions),
    tools: acc.tools,
    toolUses: acc.toolUses,
  };
}

function newGameAcc(item: string, game: string, version: string | null): GameAcc {
  return { item, game, version, players: new Map(), unverified: 0, otherVersion: 0, clicks: new Map() };
}

/** Adds a session's part of a game item to one row's figures; `who` counts once, with their earliest session. */
function addGame(acc: GameAcc, part: GameDigest, who: string): void {
  if (part.status === 'other_version') {
    acc.otherVersion++;
    return;
  }
  if (part.status !== 'verified' || !part.detail) {
    acc.unverified++;
    return;
  }
  if (!acc.players.has(who)) acc.players.set(who, part.detail);
  for (const [level, key, count] of part.clicks) {
    let m = acc.clicks.get(level);
    if (!m) acc.clicks.set(level, (m = new Map()));
    m.set(key, (m.get(key) ?? 0) + count);
  }
}

/**
 * The game rows in order, each with whether it is a row of all versions: an item's row of all
 * versions goes before its first row by version, when players of two or more versions counted.
 */
function gameRows(byVersion: ReadonlyMap<string, GameAcc>, all: ReadonlyMap<string, GameAcc>): [GameAcc, boolean][] {
  const played = new Map<string, number>();
  const itemOf = (g: GameAcc) => `${g.item}\u0000${g.game}`;
  for (const g of byVersion.values()) if (g.players.size > 0) played.set(itemOf(g), (played.get(itemOf(g)) ?? 0) + 1);
  const out: [GameAcc, boolean][] = [];
  const shown = new Set<string>();
  for (const g of byVersion.values()) {
    const key = itemOf(g);
    const every = all.get(key);
    if (every && (played.get(key) ?? 0) >= 2 && !shown.has(key)) {
      shown.add(key);
      out.push([every, true]);
    }
    out.push([g, false]);
  }
  return out;
}

function gameResult(
  acc: GameAcc,
  meta: ({ title: string; levels: number } & MountedGame) | undefined,
  allVersions: boolean,
): GameResult {
  const players = [...acc.players.entries()];
  const current = !allVersions && meta !== undefined && mountedVersion(meta, acc.game) === acc.version;
  // Another version may have other levels: only the current one lists levels nobody reached.
  const n = Math.max(current ? meta.levels : 0, ...players.map(([, p]) => p.levels.length), ...acc.clicks.keys());
  const levelsOf: PlayerLevels[] = players.map(([participant, p]) => ({
    participant,
    game: acc.game,
    levels: p.levels,
  }));
  const computed = computeBaselines(levelsOf, { [acc.game]: n }).games[acc.game];
  const levels: LevelResultRow[] = [];
  for (let k = 0; k < n; k++) {
    const reached = players.filter(([, p]) => p.levels.length > k).map(([, p]) => p);
    const done = reached.filter((p) => p.levels[k].completed);
    const counts = computed.levels[k].actions ?? [];
    const baselines = Object.fromEntries(
      BASELINE_PRESET_NAMES.map((name): [BaselinePresetName, BaselineResult] => {
        const figure = baselineOf(counts, name);
        const value = computed.levels[k].baseline[name] ?? null;
        return [
          name,
          {
            value,
            completers: computed.levels[k].completers ?? 0,
            version: BASELINE_PRESETS[name].version,
            ...(figure.reason ? { reason: figure.reason } : {}),
          },
        ];
      }),
    ) as Record<BaselinePresetName, BaselineResult>;
    const clicks = [...(acc.clicks.get(k + 1) ?? new Map<string, number>())]
      .map(([key, count]): [number, number, number] => {
        const [x, y] = key.split(',').map(Number);
        return [x, y, count];
      })
      .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    levels.push({
      level: k + 1,
      reached: reached.length,
      completed: done.length,
      actions: distribution(done.map((p) => p.levels[k].actions)),
      timeMs: distribution(done.map((p) => p.timeMs[k]).filter((t): t is number => t !== null)),
      resets: distribution(reached.map((p) => p.resets[k])),
      undos: distribution(reached.map((p) => p.undos[k])),
      baselines,
      clicks,
    });
  }
  return {
    item: acc.item,
    game: acc.game,
    version: acc.version,
    current,
    allVersions,
    title: meta?.title ?? acc.game,
    participants: players.length,
    unverified: acc.unverified,
    otherVersion: acc.otherVersion,
    levels,
  };
}
