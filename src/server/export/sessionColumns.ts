/**
 * The columns that say which session a row of an export belongs to, declared once: every CSV
 * schema composes them (`study_id`, `excluded`, ...) and the JSON schemas take them under their
 * JSON names (`studyId`, `excluded`, ...), so a column reads alike in every file. A file that says
 * more of one (its H-ARC name) adds a note after the shared words, never other words.
 */

export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'json';

/** One column of a CSV file as its schema describes it. */
export interface Column {
  readonly type: ColumnType;
  /** True when the field may be empty. */
  readonly empty?: boolean;
  readonly description: string;
  /** The least value of an integer column (JSON schemas state it). */
  readonly minimum?: number;
}

export const SESSION_COLUMNS = {
  study_id: { type: 'string', description: 'The study id' },
  study_version: { type: 'integer', minimum: 1, description: 'The study version the session ran' },
  session_id: { type: 'string', description: 'The session id' },
  participant_id: { type: 'string', description: 'PROLIFIC_PID, else workerId, else the session id' },
  prolific_pid: { type: 'string', empty: true, description: "Prolific's PROLIFIC_PID from the study link" },
  worker_id: { type: 'string', empty: true, description: "MTurk's workerId from the study link" },
  session_state: {
    type: 'string',
    description: 'started, active, finished, timed_out, abandoned or withdrawn, at export time',
  },
  playtest: { type: 'boolean', description: "A designer's playtest session (never counted)" },
  excluded: {
    type: 'boolean',
    description: 'A session a researcher excluded: kept in the export, never counted in results, baselines or grades',
  },
  excluded_reason: {
    type: 'string',
    empty: true,
    description: "The researcher's reason for the exclusion, when given",
  },
  stage: {
    type: 'string',
    description:
      "The study's stage when the session started: pilot, main or a name the researcher chose (main for sessions from before stages)",
  },
} as const satisfies Record<string, Column>;

export type SessionColumn = keyof typeof SESSION_COLUMNS;

/** A session column with a file's note after the shared words. */
const noted = (name: SessionColumn, note: string | undefined): Column =>
  note
    ? { ...SESSION_COLUMNS[name], description: `${SESSION_COLUMNS[name].description} (${note})` }
    : SESSION_COLUMNS[name];

/** The session columns for a CSV spec, with a note after a column's description where the file says more. */
export function sessionColumns(notes: Partial<Record<SessionColumn, string>> = {}): Record<SessionColumn, Column> {
  return Object.fromEntries(
    (Object.keys(SESSION_COLUMNS) as SessionColumn[]).map((name) => [name, noted(name, notes[name])]),
  ) as Record<SessionColumn, Column>;
}

/** The JSON name of a session column: `studyVersion` of `study_version`. */
export const jsonName = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Session columns as JSON schema properties, by their JSON names (`studyVersion`), in the order given. */
export function sessionProperties(names: readonly SessionColumn[]): Record<string, object> {
  return Object.fromEntries(
    names.map((name) => {
      const col: Column = SESSION_COLUMNS[name];
      const type = col.type === 'json' ? 'string' : col.type;
      return [
        jsonName(name),
        {
          type: col.empty ? [type, 'null'] : type,
          ...(col.minimum !== undefined ? { minimum: col.minimum } : {}),
          description: col.description,
        },
      ];
    }),
  );
}
