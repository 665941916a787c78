/**
 * `events.jsonl`: every stored event of every exported session, one JSON object per line, in
 * session order (by creation) and seq order within a session. See docs/formats/README.md.
 */
import { ITEM_START } from '../../core/study/rules';
import { type ExportContext, definitionFor, isExcludedSession, isPlaytestSession, practiceItems } from './context';
import { jsonText } from './safeJson';

/** The format version written in docs and schemas. */
/** 2: `excluded`. 3: `stage`. */
export const EVENTS_VERSION = 3;

/** One line of `events.jsonl`. */
export interface ExportedEvent {
  readonly sessionId: string;
  readonly studyVersion: number;
  readonly seq: number;
  /** Ms since the session started (the browser's monotonic clock). */
  readonly t: number;
  readonly kind: string;
  readonly data: Record<string, unknown>;
  /** The server's receive time, ms since the epoch. */
  readonly receivedAt: number;
  /** The item the event belongs to (the last `item.start` before it), or null before any. */
  readonly item: string | null;
  /** True when the item is a practice item (never counted). */
  readonly practice: boolean;
  /** True when the session is a designer's playtest (never counted). */
  readonly playtest: boolean;
  /** True when a researcher excluded the session (never counted). */
  readonly excluded: boolean;
  /** The study's stage when the session started. */
  readonly stage: string;
}

/**
 * Yields the file a page of events at a time (each chunk ends with a line end). Every event is
 * written with its data as stored, however deep it nests (`jsonText`).
 */
export async function* eventsJsonl(ctx: ExportContext): AsyncGenerator<string> {
  for (const s of ctx.sessions) {
    const practice = practiceItems(definitionFor(ctx, s));
    const playtest = isPlaytestSession(s);
    const excluded = isExcludedSession(s);
    let item: string | null = null;
    for await (const page of ctx.store.streamEvents(s.id, { batchSize: ctx.pageSize })) {
      let chunk = '';
      for (const e of page) {
        if (e.kind === ITEM_START && typeof e.data.item === 'string') item = e.data.item;
        const line: ExportedEvent = {
          sessionId: s.id,
          studyVersion: s.studyVersion,
          seq: e.seq,
          t: e.t,
          kind: e.kind,
          data: e.data,
          receivedAt: e.receivedAt,
          item,
          practice: item !== null && practice.has(item),
          playtest,
          excluded,
          stage: s.stage,
        };
        chunk += jsonText(line) + '\n';
      }
      yield chunk;
    }
  }
}
