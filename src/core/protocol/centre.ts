/**
 * The testing centre's wire: the request bodies of the proctor's and the stations' routes (zod,
 * checked by the server at the door) and their answers, for `server/centre/` and
 * `client/centre/` alike. docs/api.md, "Testing centre", describes the routes.
 */
import { z } from 'zod';
import type { PayoutSheet } from '../analysis/payouts';
import type { CentreView } from '../study/centre';

export type { CentreView, StationStatus, StationSession, StationState } from '../study/centre';
export type { PayoutSheet, PayoutSlip } from '../analysis/payouts';

/**
 * A participant's id as a proctor types it: what a bonus file can hold as it is (letters, digits,
 * `_ . @ -`), so the payout sheet and the bonus rule name the same person.
 */
export const ParticipantId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.@-]{1,200}$/, 'must be 1-200 letters, digits or "_ . @ -" (no spaces)');

/** The link parameter that names the station a session began on. */
export const STATION_PARAM = 'station';
/** The link parameter of the participant's id at a centre (`core/study/draw.ts` `participantKey` reads it). */
export const PARTICIPANT_PARAM = 'participantId';

/** `POST /api/admin/studies/:studyId/centre/stations`: a new station's name. */
export const StationRequest = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'give the station a name, e.g. "A1"')
    .max(40)
    .refine((n) => ![...n].some((ch) => ch.charCodeAt(0) < 32), 'no control characters'),
});

/** `POST .../centre/stations/:stationId/checkin`: the participant who sits down there. */
export const CheckinRequest = z.strictObject({ participantId: ParticipantId });

/** `POST /api/admin/sessions/:sessionId/centre/notes`: a proctor's note, or a flag. */
export const NoteRequest = z.strictObject({
  text: z.string().trim().min(1, 'write the note').max(2000),
  flag: z.boolean().default(false),
});

/** `POST /api/admin/sessions/:sessionId/centre/end`: why the proctor ended the session. */
export const EndRequest = z.strictObject({ reason: z.string().trim().max(500).default('') });

/** `POST /api/centre/station/ping`: the station's outbox, so the console can tell caught up from behind. */
export const PingRequest = z.strictObject({
  sessionId: z.string().max(100).nullable().default(null),
  /** Events the station holds that the server has not acknowledged. */
  pending: z.number().int().min(0).max(10_000_000).default(0),
});

/** `POST /api/centre/station/sessions`: the session the station just began (its token proves it). */
export const StationSessionRequest = z.strictObject({
  sessionId: z.string().min(1).max(100),
  token: z.string().min(1).max(200),
});

/** `POST /api/centre/station/cleared`: the station's storage of a session is emptied, its data acknowledged. */
export const ClearedRequest = z.strictObject({ sessionId: z.string().min(1).max(100) });

/** A station registered: its secret, shown once, and the link that opens it. */
export interface StationCreated {
  readonly id: string;
  readonly name: string;
  /** The station link's secret; the server keeps only its hash. */
  readonly secret: string;
  /** Path of the station link (`/station#<secret>`): opened once on the station's machine. */
  readonly link: string;
}

/** What a station learns at each ping. */
export interface StationView {
  readonly station: { readonly id: string; readonly name: string; readonly studyId: string };
  /** The participant the proctor checked in to this station, not begun yet. */
  readonly waiting: string | null;
  /** The session in progress on the station, as the server knows it. */
  readonly session: {
    readonly id: string;
    readonly participant: string;
    readonly paused: boolean;
    /** Ended (finished, timed out, withdrawn or by the proctor): the station clears itself. */
    readonly ended: boolean;
  } | null;
  readonly now: number;
}

/** The console page's reading: the stations, and the study's title. */
export type ConsoleView = CentreView & { readonly title: string };

/** `GET .../centre/payouts`: the sheet of a day (or of every day). */
export type PayoutsView = PayoutSheet & { readonly studyId: string; readonly day: string | null };
