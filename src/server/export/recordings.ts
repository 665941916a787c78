/**
 * Game runs as official ARC-AGI-3 recordings: one `.recording.jsonl` per run (a run starts at
 * each `game.open` of an item's game), written by `toRecording` from the replayed log, so every
 * frame is the engine's, the RESET that starts the run included, every action with its id and
 * coordinates. Timestamps: the session's wall-clock anchor (`session.start`'s `wallClock`, else
 * the session's creation time on the server) plus the event's `t`.
 *
 * A game the server runs (ARC-AGI-3 games on the official engine) is written from its stored
 * steps instead (`game_steps`, one file per stored run, in the order the runs were opened), line
 * for line as the official toolkit writes it (`toolkitRecordingBytes`); its timestamps are when
 * the server stored each step.
 */
import { RecordingError, splitGameRuns, toRecording } from '../../core/formats/recording';
import { eventsByItem, type StoredEvent } from '../../core/study/rules';
import { games } from '../../games';
import { DecodedFrames, RECORDING_STEP_PAGE, runRecording } from '../arc3/storedRuns';
import type { GameRunRecord } from '../store/types';
import { type ExportContext, definitionFor, sessionEvents } from './context';

/** One file of an export: its name and its content, a chunk at a time. */
export interface ExportEntry {
  readonly name: string;
  readonly data: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;
}

/** A run that was not written, and why. */
export interface SkippedRun {
  readonly name: string;
  readonly reason: string;
}

/** The file name of a run: `<session>-<item>-<run>.recording.jsonl`, runs numbered from 1. */
export const recordingName = (sessionId: string, itemId: string, run: number) =>
  `${sessionId}-${itemId}-${run}.recording.jsonl`;

/** The wall-clock time of `t = 0` of a session, ms since the epoch. */
export function sessionAnchor(events: readonly StoredEvent[], createdAt: number): number {
  const start = events.find((e) => e.kind === 'session.start');
  const wall = start && typeof start.data.wallClock === 'string' ? Date.parse(start.data.wallClock) : Number.NaN;
  return Number.isFinite(wall) ? wall : createdAt;
}

/**
 * One entry per game run of every exported session (practice items and playtests included:
 * their names say which item they are). A run whose log does not replay is not written; it is
 * added to `skipped` with the reason.
 */
export async function* recordingEntries(ctx: ExportContext, skipped: SkippedRun[] = []): AsyncGenerator<ExportEntry> {
  const decoded = new DecodedFrames();
  for (const s of ctx.sessions) {
    const items = definitionFor(ctx, s).items.filter((i) => i.kind === 'game');
    if (items.length === 0) continue;
    const events = await sessionEvents(ctx, s.id);
    const anchor = sessionAnchor(events, s.createdAt);
    const byItem = eventsByItem(events);
    let stored: GameRunRecord[] | null = null;
    for (const item of items) {
      if (item.kind !== 'game') continue;
      const game = games[item.game];
      if (!game) {
        stored ??= await ctx.store.listGameRuns(s.id);
        const runs = stored.filter((r) => r.item === item.id);
        if (runs.length) {
          for (const [k, run] of runs.entries()) {
            const name = recordingName(s.id, item.id, k + 1);
            let lines: Iterable<Uint8Array>;
            try {
              lines = await runRecording(ctx.store, run, RECORDING_STEP_PAGE, decoded);
            } catch (e) {
              skipped.push({
                name,
                reason: `the stored steps of run ${run.runId} cannot be read (${e instanceof Error ? e.message : 'unknown error'})`,
              });
              continue;
            }
            yield { name, data: lines };
          }
          continue;
        }
      }
      const runs = splitGameRuns(byItem.get(item.id) ?? [], item.game);
      for (const [k, run] of runs.entries()) {
        const name = recordingName(s.id, item.id, k + 1);
        if (!game) {
          skipped.push({ name, reason: `no game "${item.game}" on this server` });
          continue;
        }
        const seed = run[0].kind === 'game.open' && typeof run[0].data.seed === 'number' ? run[0].data.seed : item.seed;
        const lines = toRecording(game, seed, run, { guid: `${s.id}-${item.id}-${k + 1}`, startTime: anchor });
        let first: IteratorResult<string>;
        try {
          // The log is replayed on the first line: a log that does not replay fails here, before the file starts.
          first = lines.next();
        } catch (e) {
          // Any failure of the replay (a log stored by an older version, damaged data) skips the run, never the export.
          skipped.push({
            name,
            reason:
              e instanceof RecordingError
                ? e.message
                : `the log of "${item.game}" cannot be replayed (${e instanceof Error ? e.message : 'unknown error'})`,
          });
          continue;
        }
        if (first.done) continue;
        yield {
          name,
          data: (function* () {
            yield first.value + '\n';
            for (const l of lines) yield l + '\n';
          })(),
        };
      }
    }
  }
}
