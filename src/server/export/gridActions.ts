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
 */
import { csvRecord } from '../../core/formats/csv';
import { currentTest, initialPlayer, reduce, type GridEventKind, type PlayerState } from '../../core/log/gridPlayer';
import { ITEM_START } from '../../core/study/rules';
import type { Rect } from '../../core/grid/grid';
import { type ExportContext, definitionFor, isPlaytestSession, participantId } from './context';

export const GRID_ACTIONS_VERSION = 1;

export const GRID_ACTIONS_COLUMNS = [
  'study_id', 'study_version', 'session_id', 'participant_id', 'playtest', 'item_id', 'collection', 'task_name', 'task_number',
  'is_tutorial', 'test_index', 'attempt_number', 'num_actions', 'seq', 'time', 'action', 'action_x', 'action_y', 'select_side',
  'select_loc', 'selected_symbol', 'selected_tool', 'copy_paste_data', 'test_output_size_x', 'test_output_size_y',
  'test_output_grid', 'verdict', 'solved', 'done',
] as const;

/** The grid player's event kinds written as actions (`task.open` only sets the task up). */
export const GRID_ACTION_EVENT_KINDS: ReadonlySet<string> = new Set<GridEventKind>([
  'tool', 'color', 'symbols', 'paint', 'stroke.end', 'fill', 'select', 'select.clear', 'recolor', 'copy', 'paste', 'resize',
  'resize.invalid', 'copy.input', 'reset', 'undo', 'redo', 'test.select', 'submit',
]);

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function rectOf(v: unknown): Rect | null {
  const r = v as Partial<Rect> | null;
  return r && typeof r === 'object' && [r.r0, r.c0, r.r1, r.c1].every((x) => typeof x === 'number') ? (r as Rect) : null;
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
    const who = participantId(s);
    let item: (typeof def.items)[number] | null = null;
    let state: PlayerState = initialPlayer();
    let count = 0;
    for await (const page of ctx.store.streamEvents(s.id, { batchSize: ctx.pageSize })) {
      let chunk = '';
      for (const e of page) {
        if (e.kind === ITEM_START && typeof e.data.item === 'string') {
          item = def.items.find((i) => i.id === e.data.item) ?? null;
          state = initialPlayer();
          count = 0;
          continue;
        }
        if (item?.kind !== 'task') continue;
        const before = state;
        state = reduce(state, e);
        if (!GRID_ACTION_EVENT_KINDS.has(e.kind)) continue;
        count++;
        const d = e.data;
        const submit = e.kind === 'submit';
        const testIndex = submit && num(d.index) !== null ? (d.index as number) : before.testIndex;
        const trialsBefore = before.tests[testIndex]?.trials ?? 0;
        const verdict = submit && typeof d.verdict === 'string' ? d.verdict : '';
        const attempt = submit && verdict !== 'duplicate' && num(d.trial) !== null ? (d.trial as number) : trialsBefore + 1;
        let x: number | null = null;
        let y: number | null = null;
        let loc = '';
        let side = '';
        let data = '';
        const rect = rectOf(d.rect);
        if (num(d.col) !== null && num(d.row) !== null) { x = d.col as number; y = d.row as number; }
        if (rect) { x = rect.c0; y = rect.r0; loc = JSON.stringify([rect.c0, rect.r0, rect.c1, rect.r1]); }
        if (typeof d.side === 'string') side = d.side;
        if (e.kind === 'copy' || e.kind === 'paste') data = JSON.stringify(d.block ?? null);
        if (e.kind === 'copy.input') data = JSON.stringify(d.grid ?? null);
        const out = (submit ? before.tests[testIndex] : currentTest(state))?.output;
        chunk += csvRecord([
          ctx.studyId, s.studyVersion, s.id, who, playtest, item.id, item.collection, item.task, taskNumber.get(item.id) ?? '',
          item.practice, testIndex, attempt, count, e.seq, e.t, e.kind, x, y, side, loc,
          num(d.color) ?? state.color, state.tool, data,
          submit && Array.isArray(d.grid) ? (d.grid[0] as unknown[] | undefined)?.length ?? 0 : out ? (out[0]?.length ?? 0) : '',
          submit && Array.isArray(d.grid) ? d.grid.length : out ? out.length : '',
          submit ? JSON.stringify(d.grid ?? null) : '',
          verdict, submit ? verdict === 'correct' : false, submit ? verdict === 'correct' || verdict === 'wrong' : false,
        ]);
      }
      if (chunk) yield chunk;
    }
  }
}
