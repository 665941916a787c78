/* eslint-disable max-lines -- every export's columns and schema sit together (see below). */
/**
 * A JSON Schema (draft 2020-12) per exported file type, written into the study bundle as
 * `schemas/<file>.schema.json` and kept in docs/formats/schemas/. A CSV file's schema
 * describes one record as an object keyed by the header's column names; every value is text
 * in the file, and the schema gives the text's form (`integer`, `number`, `boolean` as
 * `true`/`false`, empty for none).
 *
 * One file over 600 lines on purpose: every export's columns and schema sit together, so a
 * column changed for one file is seen beside the others that must agree with it.
 */
import { z } from 'zod';
import { CAMPAIGN_COLUMNS, CAMPAIGN_VERSION } from './campaign';
import { PAYMENTS_COLUMNS, PAYMENTS_VERSION } from '../../core/analysis/campaign';
import { BaselinesFileSchema } from '../../core/scoring/baselines';
import { ATTEMPTS_COLUMNS, ATTEMPTS_VERSION } from './attempts';
import { BASELINES_CSV_COLUMNS, BASELINES_CSV_VERSION } from './baselines';
import { EVENTS_VERSION } from './events';
import { GRID_ACTIONS_COLUMNS, GRID_ACTIONS_VERSION } from './gridActions';
import { GRADES_COLUMNS, GRADES_VERSION } from './grades';
import { RESPONSES_COLUMNS, RESPONSES_VERSION } from './responses';
import { GAME_VERSIONS_VERSION } from './gameVersions';
import { SURVEYS_VERSION } from './surveys';
import { type Column, type ColumnType, SESSION_COLUMNS, sessionColumns, sessionProperties } from './sessionColumns';

const BASE = 'https://arc-studio.dev/schemas/';

const TEXT_FORMS: Record<Exclude<ColumnType, 'string'>, string> = {
  integer: '^-?[0-9]+$',
  number: '^-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?$',
  boolean: '^(true|false)$',
  json: '^[\\[{"0-9tfn-]',
};

function csvSchema(
  file: string,
  version: number,
  title: string,
  description: string,
  columns: readonly string[],
  spec: Record<string, Column>,
): object {
  const missing = columns.filter((c) => !spec[c]);
  if (missing.length) throw new Error(`schema of ${file}: no description of column ${missing.join(', ')}`);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${BASE}${file}.schema.json`,
    title,
    description: `${description} Format version ${version}. One CSV record (RFC 4180, UTF-8, CRLF line ends, a header first) as an object keyed by column name; columns in this order: ${columns.join(', ')}. Formula guard: a text field whose text starts with =, +, -, @, tab or CR is written with one more leading ' (numbers are written as numbers).`,
    'x-format-version': version,
    'x-columns': columns,
    type: 'object',
    additionalProperties: false,
    required: [...columns],
    properties: Object.fromEntries(
      columns.map((c) => {
        const col = spec[c];
        const form = col.type === 'string' ? undefined : TEXT_FORMS[col.type];
        const pattern = form ? (col.empty ? `^$|${form}` : form) : undefined;
        return [
          c,
          {
            type: 'string',
            description: `${col.description} (${col.type}${col.empty ? ', may be empty' : ''})`,
            ...(pattern ? { pattern } : {}),
          },
        ];
      }),
    ),
  };
}

const ATTEMPT_SPEC: Record<string, Column> = {
  ...sessionColumns(),
  position: { type: 'integer', description: "1-based position of the item in the session's order" },
  item_id: { type: 'string', description: 'The item id in the study' },
  item_kind: { type: 'string', description: 'task or game' },
  collection: { type: 'string', empty: true, description: "Task items: the task's collection" },
  task: { type: 'string', empty: true, description: "Task items: the task's id in its collection" },
  game: { type: 'string', empty: true, description: "Game items: the game's id" },
  version: {
    type: 'string',
    empty: true,
    description:
      "The version played: tasks, the content hash of the task the first judged submission was judged on; games, the version the log or the run recorded (a server-run game's code, <game id>@<code hash>); empty when not recorded",
  },
  practice: { type: 'boolean', description: 'A practice item (never counted)' },
  started: { type: 'boolean', description: 'The participant opened the item (logged its item.start)' },
  finished: {
    type: 'boolean',
    description: 'Ended, left for a later item, or (tasks) every test input solved or out of trials',
  },
  counts: {
    type: 'boolean',
    description:
      "The attempt counts under the study's attempt rule (under attempt.maxMinutes, and for a game more than attempt.minActions actions); never for practice",
  },
  actions: {
    type: 'integer',
    description:
      'Actions on the item (docs/api.md, Definitions): grid changes of a task (a painted cell is one), the scorecard count of a game (full RESETs are none), answer changes of a question',
  },
  duration_ms: { type: 'number', description: "Server receive time from the item's first to its last event, ms" },
  active_ms: {
    type: 'number',
    description:
      'Time on task: the client-clock span of the item without hidden-tab and idle time, ms (docs/api.md, "Definitions")',
  },
  tests: { type: 'integer', empty: true, description: 'Task items: test inputs shown' },
  tests_solved: { type: 'integer', empty: true, description: 'Task items: test inputs solved' },
  trials_used: {
    type: 'integer',
    empty: true,
    description: 'Task items: judged submissions over all test inputs (refused duplicates use none)',
  },
  solved: {
    type: 'boolean',
    empty: true,
    description: 'Tasks: every test input solved; games: every level completed (empty when the log was not replayed)',
  },
  levels_completed: {
    type: 'integer',
    empty: true,
    description: "Game items: levels completed, from the server's replay",
  },
  win_levels: { type: 'integer', empty: true, description: 'Game items: levels the game has' },
  verified: {
    type: 'boolean',
    empty: true,
    description: 'Game items: the log replays with the engine exactly as logged',
  },
  item_flags: { type: 'string', empty: true, description: 'Why a game log is not trusted, "; " separated' },
  session_flags: {
    type: 'string',
    empty: true,
    description:
      'The session\'s flags (low_effort, repeat_participant, game_log_unverified:<item>, ...) and its own signals of help and low effort (pasted_text:<item>, away_from_tab:<item>, action_burst:<item>; docs/researchers.md), "; " separated',
  },
};

const PAYMENTS_SPEC: Record<string, Column> = {
  session_id: SESSION_COLUMNS.session_id,
  participant_id: {
    type: 'string',
    empty: true,
    description:
      'PROLIFIC_PID, else workerId, else participantId from the study link; empty when there is none a bonus file can hold',
  },
  stage: SESSION_COLUMNS.stage,
  solved: { type: 'integer', description: 'Candidates solved (claims settled solved)' },
  levels: { type: 'integer', description: 'Game levels completed in verified logs' },
  fee: { type: 'number', description: "The study's fee, two decimals" },
  bonus: { type: 'number', description: "The session's bonus under the payment rule, two decimals" },
  currency: { type: 'string', description: 'ISO 4217 currency of the fee and bonus' },
  counts: { type: 'boolean', description: 'The bonus file pays this session' },
  reason: {
    type: 'string',
    empty: true,
    description: 'Why it is listed apart: excluded, flagged, no_participant_id or not_finished',
  },
  signals: {
    type: 'string',
    empty: true,
    description:
      'Signals of help and low effort (pasted_text, away_from_tab, action_burst, same_wrong_answer, same_game_actions, same_description, each :<item>; docs/researchers.md), "; " separated: reasons to look before paying, which never hold a bonus back',
  },
};

const BASELINE_SPEC: Record<string, Column> = {
  game: {
    type: 'string',
    description: "The game id for the version the server ran when exporting, else the version's own id",
  },
  version: {
    type: 'string',
    empty: true,
    description:
      "The game version these figures are of: a built-in game's versioned id (push-<hash>), a server-run game's code its runs were opened on (ls20-9607627b@<code hash>); empty when not known",
  },
  level: { type: 'integer', description: '1-based level' },
  participants: { type: 'integer', description: 'First-time players of the game with a verified log' },
  reached: { type: 'integer', description: 'Of those, players whose first run entered the level' },
  completers: { type: 'integer', description: 'Of those, players whose first run completed the level' },
  preset: { type: 'string', description: 'The baseline preset: best, second-best, median or upper-median' },
  preset_version: { type: 'integer', description: "The preset's version the figure was computed with" },
  min_completers: { type: 'integer', description: 'Completers the preset needs for a figure' },
  baseline: {
    type: 'number',
    empty: true,
    description: 'Scorecard actions under the preset; empty when too few completers',
  },
  reason: { type: 'string', empty: true, description: 'Why there is no figure' },
};

const GRID_SPEC: Record<string, Column> = {
  ...sessionColumns({ participant_id: 'H-ARC: hashed_id' }),
  item_id: { type: 'string', description: 'The item id in the study' },
  collection: { type: 'string', description: "The task's collection" },
  task_name: { type: 'string', description: "H-ARC task_name: the task's id in its collection" },
  task_number: { type: 'integer', description: "H-ARC task_number: 1-based position among the session's task items" },
  is_tutorial: { type: 'boolean', description: 'H-ARC is_tutorial: a practice item' },
  test_index: { type: 'integer', description: '0-based test input the action applies to' },
  attempt_number: {
    type: 'integer',
    description:
      'H-ARC attempt_number: the trial the action belongs to (trials the server counted on the test input before it, plus 1; a judged submission: its trial)',
  },
  num_actions: { type: 'integer', description: 'H-ARC num_actions: 1-based number of the action within the item' },
  seq: { type: 'integer', description: "The event's seq in the session log" },
  time: {
    type: 'number',
    description: 'H-ARC time, here ms since the session started (the log t, monotonic, sub-millisecond)',
  },
  action: {
    type: 'string',
    description:
      'H-ARC action: the event kind (paint, fill, select, select.wand, rotate, flip, move, crop, copy, paste, resize, submit, ...)',
  },
  action_x: {
    type: 'integer',
    empty: true,
    description: 'H-ARC action_x: column, 0-based from the left (a rectangle: its left column)',
  },
  action_y: {
    type: 'integer',
    empty: true,
    description: 'H-ARC action_y: row, 0-based from the top (a rectangle: its top row)',
  },
  select_side: { type: 'string', empty: true, description: 'input or output: the grid a selection or copy is on' },
  select_loc: {
    type: 'json',
    empty: true,
    description: 'H-ARC select_loc: the rectangle as [x0, y0, x1, y1], inclusive',
  },
  selected_symbol: { type: 'integer', description: 'H-ARC selected_symbol: the colour 0-9 used or chosen' },
  selected_tool: { type: 'string', description: 'H-ARC selected_tool: edit, select, wand or fill after the action' },
  copy_paste_data: {
    type: 'json',
    empty: true,
    description: 'H-ARC copy_paste_data: the block copied or pasted (rows of colours)',
  },
  test_output_size_x: {
    type: 'integer',
    empty: true,
    description: 'H-ARC test_output_size_x: output grid width after the action (a submission: the grid submitted)',
  },
  test_output_size_y: {
    type: 'integer',
    empty: true,
    description: 'H-ARC test_output_size_y: output grid height after the action',
  },
  test_output_grid: {
    type: 'json',
    empty: true,
    description: 'H-ARC test_output_grid: the grid submitted (submissions only)',
  },
  verdict: {
    type: 'string',
    empty: true,
    description:
      "Submissions: the server's judgement, correct, wrong or duplicate; unjudged for a logged submission the server never judged",
  },
  solved: { type: 'boolean', description: 'H-ARC solved: this action solved the test input' },
  done: { type: 'boolean', description: 'H-ARC done: this action ended an attempt (a judged submission)' },
};

const GRADES_SPEC: Record<string, Column> = {
  ...sessionColumns({ session_id: 'graders never see it', excluded: 'its grades are never final' }),
  item_id: { type: 'string', description: 'The question item in the study' },
  test_index: {
    type: 'integer',
    description: "The question's 0-based position in its item (0 for a one-question item)",
  },
  collection: { type: 'string', empty: true, description: "The question's collection" },
  question: { type: 'string', empty: true, description: "The question's id in its collection" },
  answer: { type: 'string', description: 'What the participant wrote' },
  kind: {
    type: 'string',
    description:
      "grade (a grader's), adjudication (the researcher's final grade) or mean (the final grade of agreeing graders)",
  },
  grader: {
    type: 'string',
    empty: true,
    description: "The grader's label; for an adjudication, who set it (researcher); empty for a mean",
  },
  criterion_scores: {
    type: 'json',
    description: "Points per rubric criterion in the rubric's order, a JSON list; [] for an item without a rubric",
  },
  criterion_notes: { type: 'json', description: 'The note per rubric criterion, a JSON list of strings' },
  total: {
    type: 'number',
    description: 'Points: the sum of the criterion scores; without a rubric 1 (correct) or 0 (incorrect)',
  },
  max_points: { type: 'number', description: "The rubric's total points (1 without a rubric)" },
  pass: {
    type: 'boolean',
    description: "The total reaches the rubric's pass mark (half its total unless the rubric states one)",
  },
  note: { type: 'string', empty: true, description: 'The note on the whole answer' },
  final: {
    type: 'boolean',
    description:
      "This row is the answer's final grade: the only grade, the adjudication, or the mean of agreeing grades",
  },
  final_source: { type: 'string', empty: true, description: 'On a final row: single, agreed or adjudicated' },
  graded_at: { type: 'string', empty: true, description: 'When the grade was saved, ISO 8601 UTC; empty for a mean' },
};

const RESPONSES_SPEC: Record<string, Column> = {
  ...sessionColumns(),
  item_id: {
    type: 'string',
    empty: true,
    description: 'The item in the study; for a withdrawal, the item the participant was on (empty before the first)',
  },
  item_kind: { type: 'string', empty: true, description: 'question, survey, task or game' },
  practice: { type: 'boolean', empty: true, description: 'A practice item (never counted)' },
  kind: {
    type: 'string',
    description:
      'question (an answer to a question), survey (a survey answer), description (a written description of a task or game) or withdraw',
  },
  question_index: {
    type: 'integer',
    empty: true,
    description: "Questions: the 0-based place in the item (0 for a one-question item; the answer's test index)",
  },
  question_id: {
    type: 'string',
    empty: true,
    description: "Questions: the question's id in its collection; surveys: the survey question's id",
  },
  collection: { type: 'string', empty: true, description: "Questions: the question's collection" },
  part: {
    type: 'string',
    empty: true,
    description:
      'Descriptions: first (after the first submission on a task) or last (on leaving it; a game has only last)',
  },
  answer: {
    type: 'string',
    empty: true,
    description:
      'The choice label or the text (questions), the answer (surveys; several options "; " separated), the text (descriptions), the reason (withdraw); empty when not answered',
  },
  comment: { type: 'string', empty: true, description: "Withdraw: the participant's comment" },
  verdict: {
    type: 'string',
    empty: true,
    description:
      "Questions: the server's judgement, correct or wrong, or for a free response its final grade's pass (correct or wrong; points in grades.csv), else ungraded; empty when not answered",
  },
  correct: {
    type: 'boolean',
    empty: true,
    description: 'Questions: the verdict is correct (empty when ungraded or not answered)',
  },
  item_time_ms: {
    type: 'number',
    empty: true,
    description: 'Client time on the item, ms: from its item.start to its item.end (or its last event)',
  },
  changes: {
    type: 'integer',
    empty: true,
    description:
      'Answer changes before the answer was sent: of its successive logged values (choices, texts logged when typing pauses, survey values), those that differ from the one before; the first is not a change',
  },
  answered_at: { type: 'string', empty: true, description: 'When the server stored the answer, ISO 8601 UTC' },
};

const eventsSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: `${BASE}events.schema.json`,
  title: 'ARC Studio events.jsonl line',
  description: `One stored event of a study session, with where it belongs. Format version ${EVENTS_VERSION}. One JSON object per line (UTF-8, LF).`,
  'x-format-version': EVENTS_VERSION,
  type: 'object',
  additionalProperties: false,
  required: [
    'sessionId',
    'studyVersion',
    'seq',
    't',
    'kind',
    'data',
    'receivedAt',
    'item',
    'practice',
    'playtest',
    'excluded',
    'stage',
  ],
  properties: {
    ...sessionProperties(['session_id', 'study_version']),
    seq: { type: 'integer', minimum: 0, description: '0, 1, 2, ... within the session' },
    t: { type: 'number', minimum: 0, description: 'ms since the session started (performance.now(), sub-millisecond)' },
    kind: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'What happened: item.start, paint, submit, game.action, ...',
    },
    data: { type: 'object', description: "The kind's payload" },
    receivedAt: { type: 'number', description: "The server's receive time, ms since the Unix epoch" },
    item: { type: ['string', 'null'], description: 'The item the event belongs to (the last item.start before it)' },
    practice: { type: 'boolean', description: 'The item is a practice item (never counted)' },
    ...sessionProperties(['playtest', 'excluded', 'stage']),
  },
};

const recordingSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: `${BASE}recording.schema.json`,
  title: 'ARC-AGI-3 .recording.jsonl line',
  description:
    'One action of a game run and the frames it produced, as the official ARC-AGI-3 recordings write it (see docs/formats/recording.md). One JSON object per line.',
  type: 'object',
  required: ['timestamp', 'data'],
  properties: {
    timestamp: {
      type: 'string',
      description: 'ISO-8601 UTC with microseconds and +00:00: the session wall-clock anchor plus the event t',
    },
    data: {
      type: 'object',
      required: [
        'game_id',
        'frame',
        'state',
        'levels_completed',
        'win_levels',
        'action_input',
        'guid',
        'full_reset',
        'available_actions',
      ],
      properties: {
        game_id: { type: 'string' },
        frame: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'array',
            minItems: 64,
            maxItems: 64,
            items: { type: 'array', minItems: 64, maxItems: 64, items: { type: 'integer', minimum: 0, maximum: 15 } },
          },
        },
        state: { enum: ['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER'] },
        levels_completed: { type: 'integer', minimum: 0 },
        win_levels: { type: 'integer', minimum: 0 },
        action_input: {
          type: 'object',
          required: ['id', 'data'],
          properties: {
            id: {
              description:
                'The action: by number (RESET 0, ACTION1-7 1-7) in the recordings of built-in games, by name in those of server-run games, as the official toolkit writes them',
              oneOf: [
                { type: 'integer', minimum: 0, maximum: 7 },
                { enum: ['RESET', 'ACTION1', 'ACTION2', 'ACTION3', 'ACTION4', 'ACTION5', 'ACTION6', 'ACTION7'] },
              ],
            },
            data: {
              type: 'object',
              properties: {
                x: { type: 'integer', minimum: 0, maximum: 63 },
                y: { type: 'integer', minimum: 0, maximum: 63 },
              },
            },
            reasoning: { description: "The agent's reasoning, as the toolkit writes it (null for a person)" },
          },
        },
        guid: { type: 'string' },
        full_reset: { type: 'boolean' },
        available_actions: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 7 } },
      },
    },
  },
};

const CAMPAIGN_SPEC: Record<string, Column> = {
  study_id: SESSION_COLUMNS.study_id,
  campaign_id: { type: 'string', empty: true, description: "The study's campaign id (empty: the study alone)" },
  pool: { type: 'string', description: 'The pool item id' },
  candidate_id: { type: 'string', description: "The candidate's item id (as in the logs)" },
  kind: { type: 'string', description: 'task, game or question' },
  label: { type: 'string', description: 'The task id, game id or question id' },
  target_kind: { type: 'string', description: 'solves (full solves by different participants) or attempts' },
  target: { type: 'integer', description: 'How many the target asks for' },
  drawn: { type: 'integer', description: 'Sessions that drew it (every study of the campaign)' },
  in_progress: { type: 'integer', description: 'Drawn by sessions still in progress' },
  attempts: { type: 'integer', description: "Counted attempts (the study's attempt rule), sessions not excluded" },
  solves: { type: 'integer', description: 'Distinct participants who solved it fully, sessions not excluded' },
  status: { type: 'string', description: 'met, needs_more, revise or never_solved (the rule is in campaign.json)' },
  median_actions: { type: 'number', empty: true, description: "Median actions of this study's full solves" },
  median_seconds: { type: 'number', empty: true, description: "Median seconds of this study's full solves" },
  versions: {
    type: 'string',
    description: 'The versions met (game versions or collection/task), space-separated, oldest first',
  },
  drop_off_levels: { type: 'string', description: 'Games: the levels flagged as drop-offs, space-separated' },
};

const campaignViewSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: `${BASE}campaign-view.schema.json`,
  title: 'ARC Studio campaign.json (arc-studio.campaign)',
  description: `The campaign view of a study with pools, as GET /api/admin/studies/:id/campaign answers it (CampaignView in src/core/protocol/campaign.ts). Format version ${CAMPAIGN_VERSION}.`,
  type: 'object',
  required: [
    'format',
    'version',
    'studyId',
    'campaignId',
    'rule',
    'generatedAt',
    'participants',
    'candidates',
    'participantsNeeded',
    'signals',
  ],
  properties: {
    format: { const: 'arc-studio.campaign' },
    version: { type: 'integer' },
    studyId: { type: 'string' },
    campaignId: { type: ['string', 'null'] },
    rule: { type: 'string' },
    generatedAt: { type: 'number', description: 'ms since the epoch' },
    participants: { type: 'object', required: ['inProgress', 'finished', 'total', 'live'] },
    candidates: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'id',
          'pool',
          'kind',
          'label',
          'target',
          'drawn',
          'inProgress',
          'attempts',
          'solves',
          'status',
          'medianActions',
          'medianSeconds',
          'versions',
        ],
        properties: {
          status: { enum: ['met', 'needs_more', 'revise', 'never_solved'] },
          levels: {
            type: 'array',
            items: {
              type: 'object',
              required: ['level', 'reached', 'completed', 'medianActions', 'medianSeconds', 'dropOff'],
            },
          },
        },
      },
    },
    participantsNeeded: { type: ['integer', 'null'] },
    signals: {
      type: 'array',
      description: 'Every session with signals of help and low effort (docs/researchers.md), oldest first',
      items: {
        type: 'object',
        required: ['sessionId', 'participant', 'signals'],
        properties: {
          sessionId: { type: 'string' },
          participant: { type: ['string', 'null'] },
          signals: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';
const MS = { type: 'number', description: 'ms since the Unix epoch' };
const CODE_HASH = {
  type: ['string', 'null'],
  pattern: '^[0-9a-f]+$',
  description:
    "The content hash of an arcengine game's files (.py files and metadata.json, src/server/arc3/gameCode.ts); null for other games and runs stored before versions were kept",
};

const gameRunsSchema = {
  $schema: SCHEMA,
  $id: `${BASE}game-runs.schema.json`,
  title: 'ARC Studio game-runs.jsonl line',
  description: `One stored run of a server-run (arcengine or remote) game: the version of the game's code it recorded when it was opened. Format version ${GAME_VERSIONS_VERSION}. One JSON object per line (UTF-8, LF), sessions in order of creation, runs in the order they were opened.`,
  'x-format-version': GAME_VERSIONS_VERSION,
  type: 'object',
  additionalProperties: false,
  required: [
    'sessionId',
    'studyVersion',
    'item',
    'run',
    'runId',
    'gameId',
    'version',
    'codeHash',
    'source',
    'engine',
    'seed',
    'openedAt',
    'recording',
    'practice',
    'playtest',
    'excluded',
    'stage',
  ],
  properties: {
    ...sessionProperties(['session_id', 'study_version']),
    item: { type: 'string', description: 'The game item' },
    run: { type: 'integer', minimum: 1, description: "1-based among the item's stored runs, in the order opened" },
    runId: { type: 'string' },
    gameId: { type: 'string', description: 'The full official id, e.g. ls20-9607627b' },
    version: {
      type: 'string',
      description: '<game id>@<code hash> when the run recorded a code hash, else the game id',
    },
    codeHash: CODE_HASH,
    source: { enum: ['arcengine', 'remote'] },
    engine: { type: 'string', description: 'The engine that ran it, e.g. arcengine 0.9.3' },
    seed: { type: 'integer' },
    openedAt: { ...MS, description: 'When the server opened the run, ms since the Unix epoch' },
    recording: {
      type: 'string',
      description: "The run's file in recordings/ (absent when the bundle's README lists it as not written)",
    },
    practice: { type: 'boolean', description: 'The item is a practice item (never counted)' },
    ...sessionProperties(['playtest', 'excluded', 'stage']),
  },
};

const gameVersionsSchema = {
  $schema: SCHEMA,
  $id: `${BASE}game-versions.schema.json`,
  title: 'ARC Studio game-versions.json (arc-studio.game-versions)',
  description: `The versions of its games a study started with, and every version its exported runs were opened on. Format version ${GAME_VERSIONS_VERSION}.`,
  'x-format-version': GAME_VERSIONS_VERSION,
  type: 'object',
  additionalProperties: false,
  required: ['format', 'formatVersion', 'studyId', 'studyVersion', 'startedWith', 'versions'],
  properties: {
    format: { const: 'arc-studio.game-versions' },
    formatVersion: { const: GAME_VERSIONS_VERSION },
    studyId: { type: 'string' },
    studyVersion: { type: ['integer', 'null'], description: 'The study version exported; null: every version' },
    startedWith: {
      type: 'array',
      description: "Per game, the version the study's first session that had the game recorded",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['gameId', 'version', 'codeHash', 'sessionId', 'pinnedAt', 'current', 'changed'],
        properties: {
          gameId: { type: 'string' },
          version: {
            type: 'string',
            description:
              "<game id>@<code hash> for an arcengine game, a built-in game's versioned id, a remote game's id",
          },
          codeHash: CODE_HASH,
          sessionId: { type: 'string', description: 'The session that recorded it' },
          pinnedAt: MS,
          current: {
            type: ['string', 'null'],
            description: 'The version the exporting server mounts now; null when it does not mount the game',
          },
          changed: { type: 'boolean', description: 'current is not the version the study started with' },
        },
      },
    },
    versions: {
      type: 'array',
      description: 'Every version the exported runs of server-run games were opened on, in the order first used',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'gameId',
          'version',
          'codeHash',
          'runs',
          'firstOpenedAt',
          'lastOpenedAt',
          'startedWith',
          'current',
          'codeKept',
        ],
        properties: {
          gameId: { type: 'string' },
          version: { type: 'string' },
          codeHash: CODE_HASH,
          runs: { type: 'integer', minimum: 1 },
          firstOpenedAt: MS,
          lastOpenedAt: MS,
          startedWith: { type: 'boolean', description: 'The study started with this version' },
          current: { type: 'boolean', description: 'The exporting server mounts this version now' },
          codeKept: {
            type: ['boolean', 'null'],
            description:
              "The database keeps this version's files, so its runs can be played again on them (arc-studio games verify-session); null for runs without a code hash",
          },
        },
      },
    },
  },
};

const QUESTION_BASE = {
  id: { type: 'string' },
  prompt: { type: 'string' },
  type: { enum: ['text', 'longtext', 'choice', 'multi', 'scale', 'number'] },
  required: { type: 'boolean' },
  answered: { type: 'integer', minimum: 0, description: 'Counted sessions that answered it' },
  skipped: { type: 'integer', minimum: 0, description: 'Counted sessions that submitted the survey without it' },
  unreadable: { type: 'integer', minimum: 0, description: 'Stored answers that do not fit the question' },
};
const NUMBER_OR_NULL = { type: ['number', 'null'] };

const surveysSchema = {
  $schema: SCHEMA,
  $id: `${BASE}surveys.schema.json`,
  title: 'ARC Studio surveys.json (arc-studio.surveys)',
  description: `The survey summaries of a study as GET /api/admin/studies/:id/results/surveys answers them (StudySurveySummaries in src/core/analysis/surveys.ts): playtests and excluded sessions left out; one summary per survey item and distinct definition. Format version ${SURVEYS_VERSION}.`,
  'x-format-version': SURVEYS_VERSION,
  type: 'object',
  additionalProperties: false,
  required: ['format', 'formatVersion', 'studyId', 'studyVersion', 'surveys'],
  properties: {
    format: { const: 'arc-studio.surveys' },
    formatVersion: { const: SURVEYS_VERSION },
    studyId: { type: 'string' },
    studyVersion: { type: ['integer', 'null'], description: 'The study version summarised; null: every version' },
    surveys: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['item', 'title', 'versions', 'respondents', 'questions'],
        properties: {
          item: { type: 'string' },
          title: { type: 'string' },
          versions: { type: 'array', items: { type: 'integer', minimum: 1 } },
          respondents: { type: 'integer', minimum: 0, description: 'Counted sessions that submitted the survey' },
          questions: {
            type: 'array',
            items: {
              oneOf: [
                {
                  type: 'object',
                  additionalProperties: false,
                  required: [...Object.keys(QUESTION_BASE), 'summary', 'options'],
                  properties: {
                    ...QUESTION_BASE,
                    summary: { const: 'choice' },
                    options: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['option', 'count', 'share'],
                        properties: {
                          option: { type: 'string' },
                          count: { type: 'integer', minimum: 0 },
                          share: { type: 'number', minimum: 0, maximum: 1, description: 'count / answered' },
                        },
                      },
                    },
                  },
                },
                {
                  type: 'object',
                  additionalProperties: false,
                  required: [...Object.keys(QUESTION_BASE), 'summary', 'dist', 'counts', 'scale'],
                  properties: {
                    ...QUESTION_BASE,
                    summary: { const: 'numeric' },
                    dist: {
                      type: 'object',
                      additionalProperties: false,
                      required: ['n', 'min', 'p25', 'median', 'p75', 'max', 'mean'],
                      properties: {
                        n: { type: 'integer', minimum: 0 },
                        min: NUMBER_OR_NULL,
                        p25: NUMBER_OR_NULL,
                        median: NUMBER_OR_NULL,
                        p75: NUMBER_OR_NULL,
                        max: NUMBER_OR_NULL,
                        mean: NUMBER_OR_NULL,
                      },
                    },
                    counts: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['value', 'count'],
                        properties: { value: { type: 'number' }, count: { type: 'integer', minimum: 0 } },
                      },
                    },
                    scale: {
                      type: ['object', 'null'],
                      additionalProperties: false,
                      required: ['min', 'max', 'labels'],
                      properties: {
                        min: { type: 'integer' },
                        max: { type: 'integer' },
                        labels: {
                          type: ['array', 'null'],
                          items: { type: 'string' },
                          minItems: 2,
                          maxItems: 2,
                        },
                      },
                    },
                  },
                },
                {
                  type: 'object',
                  additionalProperties: false,
                  required: [...Object.keys(QUESTION_BASE), 'summary', 'answers'],
                  properties: {
                    ...QUESTION_BASE,
                    summary: { const: 'text' },
                    answers: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['sessionId', 'participant', 'text', 'at'],
                        properties: {
                          sessionId: { type: 'string' },
                          participant: {
                            type: 'string',
                            description: 'PROLIFIC_PID, else workerId, else the session id',
                          },
                          text: { type: 'string' },
                          at: MS,
                        },
                      },
                    },
                  },
                },
              ],
            },
          },
        },
      },
    },
  },
};

/** The schema files, by file name (`<name>.schema.json`). */
export function exportSchemas(): Record<string, object> {
  return {
    'events.schema.json': eventsSchema,
    'attempts.schema.json': csvSchema(
      'attempts',
      ATTEMPTS_VERSION,
      'ARC Studio attempts.csv record',
      'One attempt: a session and an item the participant started.',
      ATTEMPTS_COLUMNS,
      ATTEMPT_SPEC,
    ),
    'baselines.schema.json': {
      ...z.toJSONSchema(BaselinesFileSchema, { target: 'draft-2020-12' }),
      $id: `${BASE}baselines.schema.json`,
      title: 'ARC Studio baselines.json (arc-studio.baselines)',
      description:
        'Per game and level: first-time players who reached and completed it, their action counts and the baseline under each named preset; presets names their versions. Read by arc-studio score --baselines.',
    },
    'baselines-csv.schema.json': csvSchema(
      'baselines-csv',
      BASELINES_CSV_VERSION,
      'ARC Studio baselines.csv record',
      'One baseline figure: a game level under one named preset.',
      BASELINES_CSV_COLUMNS,
      BASELINE_SPEC,
    ),
    'grid-actions.schema.json': csvSchema(
      'grid-actions',
      GRID_ACTIONS_VERSION,
      'ARC Studio grid-actions.csv record',
      'One grid-task action, with H-ARC column names where they map. Coordinates: x is the column, y the row, both 0-based from the top-left cell; time is ms since the session started.',
      GRID_ACTIONS_COLUMNS,
      GRID_SPEC,
    ),
    'grades.schema.json': csvSchema(
      'grades',
      GRADES_VERSION,
      'ARC Studio grades.csv record',
      'One grade of a free-response or symbolic answer to a question item.',
      GRADES_COLUMNS,
      GRADES_SPEC,
    ),
    'responses.schema.json': csvSchema(
      'responses',
      RESPONSES_VERSION,
      'ARC Studio responses.csv record',
      "One participant's answer to a question, a survey question, a written description or a withdrawal.",
      RESPONSES_COLUMNS,
      RESPONSES_SPEC,
    ),
    'recording.schema.json': recordingSchema,
    'campaign.schema.json': csvSchema(
      'campaign',
      CAMPAIGN_VERSION,
      'ARC Studio campaign.csv record',
      'One candidate of a pool of a campaign study, and where it stands against its target.',
      CAMPAIGN_COLUMNS,
      CAMPAIGN_SPEC,
    ),
    'campaign-view.schema.json': campaignViewSchema,
    'payments.schema.json': csvSchema(
      'payments',
      PAYMENTS_VERSION,
      'ARC Studio payments.csv record',
      'One session of a campaign study and its payment, as the campaign page\'s "Download payments (CSV)" writes it (paymentsCsv in src/core/analysis/campaign.ts).',
      PAYMENTS_COLUMNS,
      PAYMENTS_SPEC,
    ),
    'surveys.schema.json': surveysSchema,
    'game-versions.schema.json': gameVersionsSchema,
    'game-runs.schema.json': gameRunsSchema,
  };
}
