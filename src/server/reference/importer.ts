/**
 * Importing reference recordings as a named group of a game, and reading groups back as the
 * studio and scoring see them.
 *
 * An import is all or nothing: every file is read strictly (`readReferenceRecording`: each bad
 * line named with its number), every recording must name the game's mounted version, and every
 * one is played again on that version through the official engine (a Python engine process of
 * its own, off the participants'), each line's state, levels and frames compared with what the
 * engine answers. Only when all of that holds is the group written, in one transaction.
 */
import { formatActions } from '../../core/game/actions';
import { hashHex } from '../../core/game/hash';
import type { ServerGameInfo } from '../../core/game/serverGame';
import type { ReferenceGroupView } from '../../core/protocol/api';
import type { ErrorCode } from '../../core/protocol/errors';
import { computeBaselines, type Baselines } from '../../core/scoring/baselines';
import {
  readReferenceRecording,
  referenceLevels,
  type LineProblem,
  type ReferenceRecording,
  type ReferenceStep,
} from '../../core/scoring/reference';
import type { Arc3FrameData } from '../arc3/protocol';
import type { Replayer } from '../arc3/storedRuns';
import type { ReferenceGroupRecord, ReferenceStore } from '../store/referenceStore';

/** Most files in one import. */
export const MAX_REFERENCE_FILES = 1000;

/** A group's name: what the studio and a scorecard's `reference:<name>` tag call it. */
export const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$/;

/** A file to import: its name and its lines. */
export interface ReferenceFile {
  readonly name: string;
  readonly lines: Iterable<string>;
}

/** What an import needs: the store, the server's games and something to play recordings on. */
export interface ReferenceDeps {
  readonly references: ReferenceStore;
  /** The server-run game of an id (full, or a short id with one version); null when none. */
  readonly game: (id: string) => ServerGameInfo | null;
  /** The ids of the server-run games, for messages. */
  readonly gameIds: () => readonly string[];
  /** What recordings are played on, and how to let it go. */
  readonly replayer: () => { replayer: Replayer; release: () => Promise<void> };
  readonly now: () => number;
}

/** An import refused: the HTTP status, the code, the message, and the bad lines when there are. */
export interface ImportRefusal {
  readonly status: 400 | 404 | 409 | 422;
  readonly code: ErrorCode;
  readonly message: string;
  readonly problems?: readonly LineProblem[];
}

const refuse = (
  status: ImportRefusal['status'],
  code: ErrorCode,
  message: string,
  problems?: readonly LineProblem[],
): { refused: ImportRefusal } => ({ refused: { status, code, message, ...(problems ? { problems } : {}) } });

const stem = (id: string): string => id.split('-')[0];

/** The first thing a line says that the engine does not answer, or null when they agree. */
function stepDifference(step: ReferenceStep, fd: Arc3FrameData): string | null {
  if (fd.state !== step.state) return `the recording says state ${step.state}, the game answers ${fd.state}`;
  if (fd.levels_completed !== step.levelsCompleted)
    return `the recording says levels_completed ${step.levelsCompleted}, the game answers ${fd.levels_completed}`;
  if (step.frameHash !== null && hashHex(fd.frame) !== step.frameHash)
    return 'the recorded frames differ from the frames the game answers';
  return null;
}

/**
 * Plays a recording on `game`: the first line the engine answers otherwise (`differs`), the
 * engine's failure (`failed`), or null when every line agrees.
 */
async function replayDifference(
  replayer: Replayer,
  game: ServerGameInfo,
  r: ReferenceRecording,
): Promise<{ differs: string } | { failed: string } | null> {
  const id = `reference-${hashHex([r.file, r.guid, r.startedAt])}`;
  let line = r.steps[0].line;
  try {
    const opened = await replayer.open(id, game.id, 0, 0);
    let diff = stepDifference(r.steps[0], opened.frame);
    for (let i = 1; !diff && i < r.steps.length; i++) {
      const s = r.steps[i];
      line = s.line;
      diff = stepDifference(s, await replayer.act(id, s.input));
    }
    return diff ? { differs: `line ${line}: ${diff}` } : null;
  } catch (e) {
    return { failed: `line ${line} could not be played (${(e as Error).message})` };
  } finally {
    await replayer.close(id).catch(() => undefined);
  }
}

/**
 * Reads, checks, replays and stores `files` as group `name` of game `gameId`, in one
 * transaction; or the refusal saying what is wrong and what to do, with nothing stored.
 */
export async function importReferenceGroup(
  deps: ReferenceDeps,
  gameId: string,
  name: string,
  files: readonly ReferenceFile[],
  actor: string,
): Promise<{ group: ReferenceGroupView } | { refused: ImportRefusal }> {
  const game = deps.game(gameId);
  if (!game) {
    const ids = deps.gameIds();
    return refuse(
      404,
      'not_found',
      `No server-run game "${gameId.slice(0, 80)}". ${ids.length ? `The server runs ${ids.join(', ')}.` : 'Mount the game with serve --arc3-games DIR.'}`,
    );
  }
  if (!GROUP_NAME.test(name))
    return refuse(
      400,
      'malformed',
      `"${name.slice(0, 80)}" is not a group name: 1 to 80 letters, digits, spaces, "_", "." or "-", starting with a letter or digit.`,
    );
  if (!files.length)
    return refuse(400, 'malformed', 'No recording files were sent: send one .recording.jsonl file per run.');
  if (files.length > MAX_REFERENCE_FILES)
    return refuse(
      400,
      'too_large',
      `${files.length} files is more than ${MAX_REFERENCE_FILES} in one import; import them as several groups.`,
    );

  const recordings: ReferenceRecording[] = [];
  const problems: LineProblem[] = [];
  for (const f of files) {
    const read = readReferenceRecording(f.name, f.lines);
    if ('problems' in read) problems.push(...read.problems);
    else recordings.push(read.recording);
    // A file is read in one go: let the participants' requests in between files.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (problems.length) {
    const shown = problems
      .slice(0, 3)
      .map((p) => `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message}`)
      .join('; ');
    return refuse(
      422,
      'invalid_recording',
      `${problems.length} bad line${problems.length === 1 ? '' : 's'} (${shown}${problems.length > 3 ? '; ...' : ''}). Nothing was imported: correct or leave out those files and import again.`,
      problems,
    );
  }
  for (const r of recordings) {
    if (r.gameId === game.id) continue;
    return refuse(
      422,
      'other_version',
      stem(r.gameId) === stem(game.id)
        ? `${r.file} was recorded on ${r.gameId}, and this server runs ${game.id}: its levels and counts are another version's. Nothing was imported: import it into that version's game, or leave it out.`
        : `${r.file} is a recording of ${r.gameId}, not of ${game.id}. Nothing was imported: import it into its own game's group, or leave it out.`,
    );
  }

  const { replayer, release } = deps.replayer();
  try {
    for (const r of recordings) {
      const diff = await replayDifference(replayer, game, r);
      if (diff && 'failed' in diff)
        return refuse(
          422,
          'game_error',
          `${r.file}: ${diff.failed} on ${game.version ?? game.id}. Nothing was imported: try again, and see the server's log if it repeats.`,
        );
      if (diff)
        return refuse(
          422,
          'other_version',
          `${r.file} does not replay on the mounted ${game.version ?? game.id}: ${diff.differs}. It was recorded on other code of the game. Nothing was imported: mount the files it was recorded on, or leave it out.`,
        );
    }
  } finally {
    await release();
  }

  const record = {
    gameId: game.id,
    name,
    version: game.version ?? game.id,
    winLevels: recordings.find((r) => r.winLevels !== null)?.winLevels ?? game.levels ?? null,
    createdAt: deps.now(),
    createdBy: actor,
  };
  const stored = recordings.map((r) => ({
    file: r.file,
    guid: r.guid,
    startedAt: r.startedAt,
    plays: r.plays,
    actions: r.actions,
    state: r.state,
    levels: r.levels,
    inputs: formatActions(r.steps.map((s) => s.input)),
  }));
  if ((await deps.references.addReferenceGroup(record, stored)) === 'exists')
    return refuse(
      409,
      'exists',
      `${game.id} already has a reference group "${name}". Choose another name, or delete that group first.`,
    );
  return { group: await groupView(deps, { ...record, recordings: stored.length }) };
}

/** A stored group with its per-level figures, as the studio shows it. */
export async function groupView(
  deps: Pick<ReferenceDeps, 'references' | 'game'>,
  group: ReferenceGroupRecord,
): Promise<ReferenceGroupView> {
  const recs = await deps.references.readReferenceRecordings(group.gameId, group.name);
  const now = deps.game(group.gameId);
  return {
    name: group.name,
    game: group.gameId,
    version: group.version,
    current: now !== null && (now.version ?? now.id) === group.version,
    recordings: recs.length,
    createdAt: group.createdAt,
    createdBy: group.createdBy,
    levels: referenceLevels(
      recs.map((r) => r.levels),
      group.winLevels ?? 0,
    ),
  };
}

/**
 * A group's recordings as human baselines for scoring, under every preset (`computeBaselines`,
 * each recording one first-time player); null when the game has no group of that name.
 */
export async function referenceBaselines(
  references: ReferenceStore,
  gameId: string,
  name: string,
): Promise<Baselines | null> {
  const groups = await references.listReferenceGroups(gameId);
  const group = groups.find((g) => g.name === name);
  if (!group) return null;
  const recs = await references.readReferenceRecordings(gameId, name);
  const players = recs.map((r, i) => ({ participant: `${i}`, game: gameId, levels: r.levels }));
  const baselines = computeBaselines(players, group.winLevels ? { [gameId]: group.winLevels } : {});
  return { source: baselines.source, games: { [gameId]: { ...baselines.games[gameId], version: gameId } } };
}
