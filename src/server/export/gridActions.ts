/**
 * `grid-actions.csv`: one row per grid-task action, with H-ARC's column names where they map
 * (LeGris et al. 2024, `clean_data.csv`: `task_name`, `task_number`, `is_tutorial`,
 * `attempt_number`, `num_actions`, `time`, `action`, `action_x`, `action_y`, `select_loc`,
 * `selected_symbol`, `selected_tool`, `copy_paste_data`, `test_output_grid`,
 * `test_output_size_x`, `test_output_size_y`, `solved`, `done`) and ours for the rest.
 *
 * Coordinates: x is the column and y the row, both 0-based from the top-left cell of the output
 * grid (of the input grid for a selection on the input side). `time` is ms since the session
 * started (the log's `t`), not a wall-clock time as in H-ARC.
 *
 * Verdicts are the server's: each `submit` event is matched to the submission the server
 * judged (same item, test input and grid, in order), and the row takes that judgement and trial
 * number, never the verdict the participant's browser logged. A `submit` with no judgement on
 * the server is `duplicate` when the server had judged the same grid wrong before (the browser
 * refuses such a repeat without asking), else `unjudged`.
 *
 * Events stored by older versions may be malformed: an event the grid player cannot apply
 * changes nothing and still gets its row, so one bad event never cuts the file short.
 */
import { csvRecord } from '../../core/formats/csv';
import { currentTest, GRID_EVENT_KINDS, initialPlayer, reduce, type PlayerState } from '../../core/log/gridPlayer';
import { ITEM_START, type StoredEvent } from '../../core/study/rules';
import type { Rect } from '../../core/grid/grid';
import type { SubmissionRecord } from '../store/types';
import { type ExportContext, definitionFor, isExcludedSession, isPlaytestSession, participantId } from './context';
import { forAnalysis, jsonText } from './safeJson';

/** 2: `excluded` after `playtest`. 3: `stage` after `excluded`. */
export const GRID_ACTIONS_VERSION = 3;

export const GRID_ACTIONS_COLUMNS = [
  'study_id',
  'study_version',
  'session_id',
  'participant_id',
  'playtest',
  'excluded',
  'stage',
  'item_id',
  'collection',
  'task_name',
  'task_number',
  'is_tutorial',
  'test_index',
  'attempt_number',
  'num_actions',
  'seq',
  'time',
  'action',
  'action_x',
  'action_y',
  'select_side',
  'select_loc',
  'selected_symbol',
  'selected_tool',
  'copy_paste_data',
  'test_output_size_x',
  'test_output_size_y',
  'test_output_grid',
  'verdict',
  'solved',
  'done',
] as const;

/** The grid player's event kinds written as actions (`task.open` only sets the task up). */
export const GRID_ACTION_EVENT_KINDS: ReadonlySet<string> = new Set(
  [...GRID_EVENT_KINDS].filter((k) => k !== 'task.open'),
);

/** The verdict of a logged submission the server never judged (and that repeats no wrong grid). */
export const UNJUDGED = 'unjudged';

/** Most test inputs a task has (a task file holds at most 100 pairs in all). */
const MAX_TESTS = 100;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function rectOf(v: unknown): Rect | null {
  const r = v as Partial<Rect> | null;
  return r && typeof r === 'object' && [r.r0, r.c0, r.r1, r.c1].every((x) => typeof x === 'number')
    ? (r as Rect)
    : null;
}

/** Width and height of a grid-like value (rows of cells), or empty fields when it is not one. */
function sizeOf(g: unknown): [number | null, number | null] {
  if (!Array.isArray(g)) return [null, null];
  const first: unknown = g[0];
  return [Array.isArray(first) ? first.length : 0, g.length];
}

/**
 * The grid player's next state, for any stored event: an event it cannot apply (a `paste`
 * without a block, a `task.open` with an impossible test count) leaves the state as it was.
 */
function apply(state: PlayerState, e: StoredEvent): PlayerState {
  if (e.kind === 'task.open') {
    const tests = e.data.tests;
    if (typeof tests !== 'number' || !Number.isInteger(tests) || tests < 0 || tests > MAX_TESTS) return state;
  }
  try {
    return reduce(state, e);
  } catch {
    return state;
  }
}

/**
 * The server's judgements of one session's submissions, handed out to the logged `submit`
 * events in order: per item and test input, a `submit` takes the next judged submission of the
 * same grid.
 */
class Judgements {
  private readonly queues = new Map<string, SubmissionRecord[]>();
  private readonly next = new Map<string, number>();

  constructor(subs: readonly SubmissionRecord[]) {
    for (const s of subs) {
      const key = `${s.item}\u0000${s.testIndex}`;
      const q = this.queues.get(key);
      if (q) q.push(s);
      else this.queues.set(key, [s]);
    }
  }

  /** The submission a `submit` of `grid` was judged as, or null when the server has none. */
  take(item: string, testIndex: number, grid: unknown): SubmissionRecord | null {
    const key = `${item}\u0000${testIndex}`;
    const q = this.queues.get(key) ?? [];
    const text = jsonText(grid);
    for (let j = this.next.get(key) ?? 0; j < q.length; j++) {
      if (jsonText(q[j].grid) === text) {
        this.next.set(key, j + 1);
        return q[j];
      }
    }
    return null;
  }

  /** Whether the server judged `grid` wrong for this test input among the submissions handed out so far. */
  wrongBefore(item: string, testIndex: number, grid: unknown): boolean {
    const key = `${item}\u0000${testIndex}`;
    const text = jsonText(grid);
    return (this.queues.get(key) ?? [])
      .slice(0, this.next.get(key) ?? 0)
      .some((s) => s.verdict === 'wrong' && jsonText(s.grid) === text);
  }

  /** Trials the server counted for this test input up to the submissions handed out so far. */
  trialsUsed(item: string, testIndex: number): number {
    const key = `${item}\u0000${testIndex}`;
    return (this.queues.get(key) ?? []).slice(0, this.next.get(key) ?? 0).filter((s) => s.trial !== null).length;
  }
}

/** Yields the header, then the rows a page of events at a time. */
export async function* gridActionsCsv(ctx: ExportContext): AsyncGenerator<string> {
  yield csvRecord(GRID_ACTIONS_COLUMNS);
  for (const s of ctx.sessions) {
    const def = definitionFor(ctx, s);
    const taskNumber = new Map<string, number>();
    for (const i of s.order) {
      const item = def.items[i];
      if (item?.kind === 'task') taskNumber.set(item.id, taskNumber.size + 1);
    }
    const playtest = isPlaytestSession(s);
    const excluded = isExcludedSession(s);
    const who = participantId(s);
    const judged = new Judgements(await ctx.store.listSubmissions(s.id));
    let item: (typeof def.items)[number] | null = null;
    let state: PlayerState = initialPlayer();
    let count = 0;
    for await (const page of ctx.store.streamEvents(s.id, { batchSize: ctx.pageSize })) {
      let chunk = '';
      for (const stored of page) {
        const e = forAnalysis(stored);
        if (e.kind === ITEM_START && typeof e.data.item === 'string') {
          item = def.items.find((i) => i.id === e.data.item) ?? null;
          state = initialPlayer();
          count = 0;
          continue;
        }
        if (item?.kind !== 'task') continue;
        const before = state;
        const d = e.data;
        const submit = e.kind === 'submit';
        const testIndex = submit && num(d.index) !== null ? (d.index as number) : before.testIndex;
        let verdict = '';
        let attempt = judged.trialsUsed(item.id, testIndex) + 1;
        let grid: unknown = d.grid;
        if (submit) {
          const sub = judged.take(item.id, testIndex, d.grid);
          if (sub) {
            verdict = sub.verdict;
            grid = sub.grid;
            if (sub.trial !== null) attempt = sub.trial;
          } else {
            verdict = judged.wrongBefore(item.id, testIndex, d.grid) ? 'duplicate' : UNJUDGED;
          }
          // The player's state follows the server's judgement; an unjudged submission uses no trial.
          const trial = sub?.trial ?? attempt - 1;
          state = apply(state, {
            ...e,
            data: { ...d, index: testIndex, trial, verdict: verdict === UNJUDGED ? 'duplicate' : verdict },
          });
        } else {
          state = apply(state, e);
        }
        if (!GRID_ACTION_EVENT_KINDS.has(e.kind)) continue;
        count++;
        let x: number | null = null;
        let y: number | null = null;
        let loc = '';
        let side = '';
        let data = '';
        const rect = rectOf(d.rect);
        if (num(d.col) !== null && num(d.row) !== null) {
          x = d.col as number;
          y = d.row as number;
        }
        if (rect) {
          x = rect.c0;
          y = rect.r0;
          loc = jsonText([rect.c0, rect.r0, rect.c1, rect.r1]);
        }
        if (typeof d.side === 'string') side = d.side;
        if ((e.kind === 'copy' || e.kind === 'paste') && Array.isArray(d.block)) data = jsonText(d.block);
        if (e.kind === 'copy.input' && Array.isArray(d.grid)) data = jsonText(d.grid);
        const [w, h] = sizeOf(submit ? grid : (currentTest(state)?.output ?? null));
        chunk += csvRecord([
          ctx.studyId,
          s.studyVersion,
          s.id,
          who,
          playtest,
          excluded,
          s.stage,
          item.id,
          item.collection,
          item.task,
          taskNumber.get(item.id) ?? '',
          item.practice,
          testIndex,
          attempt,
          count,
          e.seq,
          e.t,
          e.kind,
          x,
          y,
          side,
          loc,
          num(d.color) ?? state.color,
          typeof state.tool === 'string' ? state.tool : '',
          data,
          w,
          h,
          submit && Array.isArray(grid) ? jsonText(grid) : '',
          verdict,
          verdict === 'correct',
          verdict === 'correct' || verdict === 'wrong',
        ]);
      }
      if (chunk) yield chunk;
    }
  }
}
