/**
 * The human baselines the studio holds for a game's levels: the figures each study's results give
 * the game (`computeStudyResults`, from the sessions' digests), gathered from every study with an
 * item playing it. The state-graph panel of a playtest page shows them beside the shortest
 * solution it found.
 *
 * A study item names a game by its id (`ls20`) or a version of it (`ls20-9607627b`); the baselines
 * of every version are listed, each saying whether it is the version the server runs now.
 */
import type { StudyGameBaselines } from '../../core/protocol/api';
import { definitionOf } from '../study/studies';
import { computeStudyResults, type ResultsDeps } from './studyDigests';

/** The game's name without a version: `ls20` of `ls20-9607627b`. */
const gameName = (id: string): string => id.split('-')[0];

/**
 * Every study's baselines for game `gameId` (by its name, any version), studies in the order the
 * store lists them. Studies without an item playing it are not read at all.
 */
export async function gameBaselines(deps: ResultsDeps, gameId: string): Promise<StudyGameBaselines[]> {
  const name = gameName(gameId);
  const out: StudyGameBaselines[] = [];
  for (const study of await deps.store.listStudies()) {
    const plays = (definition: ReturnType<typeof definitionOf>) =>
      definition.items.some((item) => item.kind === 'game' && gameName(item.game) === name);
    let found = plays(definitionOf(study));
    for (let v = study.version - 1; !found && v >= 1; v--) {
      const older = await deps.store.getStudy(study.id, v);
      found = older !== null && plays(definitionOf(older));
    }
    if (!found || study.sessions === 0) continue;
    const results = await computeStudyResults(deps, study.id, null);
    if ('error' in results) continue;
    for (const g of results.games) {
      if (gameName(g.game) !== name) continue;
      out.push({
        study: study.id,
        title: results.study.title,
        item: g.item,
        version: g.version,
        current: g.current,
        participants: g.participants,
        levels: g.levels.map((l) => ({
          level: l.level,
          reached: l.reached,
          completed: l.completed,
          actions: l.actions,
          timeMs: l.timeMs,
          baselines: l.baselines,
        })),
      });
    }
  }
  return out;
}
