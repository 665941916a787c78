/**
 * What the study routers are built from: the app's dependencies (`StudyDeps`), and the small
 * helpers about items they share. The services built from the dependencies, once per app, are in
 * `./services.ts`; error replies and body readers are `../http`'s, re-exported here.
 */
import type { ResultsInput } from '../../core/analysis/results';
import type { Context } from 'hono';
import { type StudyDefinition, testIndicesOf } from '../../core/study/schema';
import type { ReplayGame } from '../../core/study/rules';
import type { Pseudonym } from '../../core/study/retention';
import type { TaskLibrary } from '../collections/collections';
import type { Store } from '../store/types';
import type { IngestLimits } from './limits';
import type { Arc3RouteInfo } from '../arc3/runs';
import type { DigestPool } from '../digests/pool';
import type { DigestMaintainer } from '../digests/maintainer';
import type { ThreadReplay } from '../arc3/replayCheck';

/**
 * What the app gives the routers that serve studies: storage, the task library, the engine and
 * the threads. `studyServices` (`./services.ts`) builds the shared services from it, once per app.
 */
export interface StudyDeps {
  readonly store: Store;
  readonly library: TaskLibrary;
  /** SHA-256 of the researcher token. */
  readonly adminTokenHash: string;
  /**
   * Whether the request comes from a person who may design (start playtests): set by the app
   * from the people's credentials; absent, the researcher token alone.
   */
  readonly mayDesign?: (c: Context) => Promise<boolean>;
  /** Replays a game item's events with the engine; null leaves game logs unverified. */
  readonly replay: ReplayGame | null;
  /** Registered game ids, to check studies against; null skips the check. */
  readonly games: ReadonlySet<string> | null;
  /** The clock, in ms since the epoch. */
  readonly now?: () => number;
  /** What one participant may send (docs/api.md, "Limits"); the defaults when absent. */
  readonly limits?: IngestLimits;
  /** Server-run ARC-AGI-3 games (arcengine folders, remote servers); absent: none. */
  readonly arc3?: Arc3RouteInfo;
  /**
   * The file that defines a study and would re-create it at the next start (`data/studies/<id>.json`),
   * or null; absent: no study comes from a file. Deleting such a study is refused.
   */
  readonly studyFile?: (id: string) => Promise<string | null>;
  /** Every game's title, level count and current version, for the results; the built-in games when absent. */
  readonly gameInfo?: () => ResultsInput['games'];
  /** Worker threads for the results' cold session digests (`digests/pool.ts`); absent: on the main thread. */
  readonly digests?: DigestPool;
  /**
   * What those threads need to check server-run games' logs as `replay` does (`arc3/replayCheck.ts`):
   * with it, the digests and summaries of studies with arcengine or remote games go to the threads too.
   */
  readonly threadReplay?: () => ThreadReplay;
  /** Digests ended sessions in the background (`digests/maintainer.ts`); absent: on request only. */
  readonly maintainer?: DigestMaintainer;
  /** Write export downloads on worker threads (`export/thread.ts`); absent: on the main thread. */
  readonly exportThreads?: boolean;
  /**
   * The pseudonym the retention job gives an identifier (`study/retention.ts`), so that a
   * participant whose earlier sessions were pseudonymised is still known: a repeat participant, a
   * candidate met before. Absent: identifiers are matched as sent.
   */
  readonly pseudonym?: Pseudonym;
}

export { fail, readBody, readJson, zodFail, type ErrorStatus } from '../http';

/** An item's soft and hard time limits: its own, else the study's. */
export function itemLimitsOf(study: StudyDefinition, item: { softMinutes?: number; hardMinutes?: number }) {
  return {
    softMinutes: item.softMinutes ?? study.limits.itemSoftMinutes,
    hardMinutes: item.hardMinutes ?? study.limits.itemHardMinutes,
  };
}

/**
 * An item of this session by id: one of the study's items in the session's order. A campaign's
 * study holds every candidate of its pools; a session has only those it drew.
 */
export function sessionItem(
  study: StudyDefinition,
  order: readonly number[],
  itemId: string,
): StudyDefinition['items'][number] | undefined {
  const index = order.find((i) => study.items[i]?.id === itemId);
  return index === undefined ? undefined : study.items[index];
}

export { testIndicesOf };
