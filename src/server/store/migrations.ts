/* eslint-disable max-lines -- every migration in one list, in version order, as they are applied: a shipped migration is never edited, so the list only grows. */
/**
 * The database schema, as numbered migrations applied in order at start, each inside the same
 * transaction that records it in `schema_migrations`. The same SQL runs on PGlite and PostgreSQL.
 *
 * WARNING: never edit a migration that has shipped; add the next number instead.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'studies, sessions, events, submissions',
    sql: `
      CREATE TABLE studies (
        id text NOT NULL,
        version integer NOT NULL,
        definition jsonb NOT NULL,
        -- 'file' (data/studies) or 'studio' (edited by a researcher)
        source text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (id, version)
      );
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        study_id text NOT NULL,
        study_version integer NOT NULL,
        token_hash text NOT NULL,
        params jsonb NOT NULL,
        seed integer NOT NULL,
        item_order jsonb NOT NULL,
        state text NOT NULL,
        -- highest seq up to which every event is stored; -1 before the first
        acked_through integer NOT NULL DEFAULT -1,
        event_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        last_event_at timestamptz,
        finished_at timestamptz,
        flags jsonb NOT NULL DEFAULT '[]',
        FOREIGN KEY (study_id, study_version) REFERENCES studies (id, version)
      );
      CREATE INDEX sessions_by_study ON sessions (study_id, study_version);
      CREATE UNIQUE INDEX sessions_by_token ON sessions (token_hash);
      CREATE TABLE events (
        session_id text NOT NULL REFERENCES sessions (id),
        seq integer NOT NULL,
        t double precision NOT NULL,
        kind text NOT NULL,
        data jsonb NOT NULL,
        received_at timestamptz NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE submissions (
        session_id text NOT NULL REFERENCES sessions (id),
        -- the client's id for this submission, so a retried request is judged once
        key text NOT NULL,
        item text NOT NULL,
        test_index integer NOT NULL,
        -- 1, 2, 3...; NULL for a duplicate of an earlier wrong grid, which uses no trial
        trial integer,
        grid jsonb NOT NULL,
        verdict text NOT NULL,
        practice boolean NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (session_id, key),
        UNIQUE (session_id, item, test_index, trial)
      );
    `,
  },
  {
    version: 2,
    name: 'bytes stored per session, for quotas',
    sql: `ALTER TABLE sessions ADD COLUMN event_bytes bigint NOT NULL DEFAULT 0;`,
  },
  {
    version: 3,
    name: 'runs of ARC-AGI-3 games run by the server, with the frames of every action',
    sql: `
      CREATE TABLE game_runs (
        run_id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions (id),
        item text NOT NULL,
        -- the full official id, e.g. ls20-9607627b
        game_id text NOT NULL,
        -- 'arcengine' (a folder, the official engine in a worker) or 'remote' (an ARC-AGI-3 server)
        source text NOT NULL,
        -- e.g. 'arcengine 0.9.3'
        engine text NOT NULL,
        seed integer NOT NULL,
        opened_at timestamptz NOT NULL
      );
      CREATE INDEX game_runs_by_session ON game_runs (session_id);
      CREATE TABLE game_steps (
        run_id text NOT NULL REFERENCES game_runs (run_id),
        -- 0 is the opening RESET
        step integer NOT NULL,
        action text NOT NULL,
        x integer,
        y integer,
        state text NOT NULL,
        levels_completed integer NOT NULL,
        win_levels integer NOT NULL,
        available jsonb NOT NULL,
        full_reset boolean NOT NULL,
        frame_hash text NOT NULL,
        -- the frames the engine returned (src/core/formats/frames.ts); keyframe: encoded without a reference
        frames text NOT NULL,
        keyframe boolean NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (run_id, step)
      );
      CREATE TABLE server_secrets (
        name text PRIMARY KEY,
        value text NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'agents: API keys, scorecards and the steps of their runs (the ARC-AGI-3 protocol)',
    sql: `
      CREATE TABLE agent_keys (
        id text PRIMARY KEY,
        name text NOT NULL,
        -- SHA-256 of the key; the key itself is shown once, when issued
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      );
      CREATE TABLE scorecards (
        card_id text PRIMARY KEY,
        -- the agent key's id, or 'researcher' for the researcher token
        key_id text NOT NULL,
        tags jsonb NOT NULL,
        source_url text,
        opaque jsonb,
        opened_at timestamptz NOT NULL,
        closed_at timestamptz
      );
      CREATE TABLE agent_runs (
        -- the protocol's guid: one game session of a scorecard
        guid text PRIMARY KEY,
        card_id text NOT NULL REFERENCES scorecards (card_id),
        -- the full id with its version, e.g. push-0123456789ab or ls20-9607627b
        game_id text NOT NULL,
        -- 'builtin', 'arcengine' or 'remote'
        source text NOT NULL,
        seed integer NOT NULL,
        opened_at timestamptz NOT NULL
      );
      CREATE INDEX agent_runs_by_card ON agent_runs (card_id);
      CREATE TABLE agent_steps (
        guid text NOT NULL REFERENCES agent_runs (guid),
        -- 0 is the RESET that opened the game session
        seq integer NOT NULL,
        action text NOT NULL,
        x integer,
        y integer,
        state text NOT NULL,
        levels_completed integer NOT NULL,
        win_levels integer NOT NULL,
        full_reset boolean NOT NULL,
        frame_hash text NOT NULL,
        reasoning jsonb,
        at timestamptz NOT NULL,
        PRIMARY KEY (guid, seq)
      );
    `,
  },
  {
    version: 5,
    name: 'agents: the frames of steps on the official engine (replays of agent runs)',
    sql: `
      -- encoded frames (core/formats/frames.ts) of arcengine and remote games; null for built-in games
      ALTER TABLE agent_steps ADD COLUMN frames text;
    `,
  },
  {
    version: 6,
    name: "excluded sessions, and the audit log of researchers' actions",
    sql: `
      -- An excluded session is listed and exported but never counted; NULL: counted.
      ALTER TABLE sessions ADD COLUMN excluded_at timestamptz;
      ALTER TABLE sessions ADD COLUMN excluded_reason text;
      -- Kept when the study or session it names is deleted: the log says who deleted what.
      CREATE TABLE audit_events (
        id bigserial PRIMARY KEY,
        study_id text NOT NULL,
        -- 'researcher' for the researcher token
        actor text NOT NULL,
        -- session.exclude, session.include, session.delete, study.delete
        action text NOT NULL,
        -- the session id, or the study id for study.delete
        target text NOT NULL,
        reason text,
        -- what the action changed, e.g. the rows deleted
        detail jsonb NOT NULL DEFAULT '{}',
        at timestamptz NOT NULL
      );
      CREATE INDEX audit_events_by_study ON audit_events (study_id, id);
    `,
  },
  {
    version: 7,
    name: 'digests of sessions for the results',
    sql: `
      -- What the results need from a session's log and submissions (core/analysis/results.ts,
      -- SessionDigest), kept while the key (analysis version, log and submission counts, the
      -- study version's tasks and games) is unchanged; derived data, deleted with the session.
      CREATE TABLE session_digests (
        session_id text PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        key text NOT NULL,
        digest jsonb NOT NULL,
        computed_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: 'one-time download links, valid on every server of the database',
    sql: `
      -- The SHA-256 of the link's token (the token itself is only in the link); used_at is set
      -- once, by the download that takes the link.
      CREATE TABLE download_tickets (
        token_hash text PRIMARY KEY,
        study_id text NOT NULL,
        version integer,
        format text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      );
    `,
  },
  {
    version: 9,
    name: 'grading: graders (their links hashed), their grades of free-response answers, adjudications',
    sql: `
      -- A grader of a study; the link's token is kept as its SHA-256 only, as download links are.
      CREATE TABLE graders (
        id text PRIMARY KEY,
        study_id text NOT NULL,
        label text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      );
      CREATE INDEX graders_by_study ON graders (study_id, created_at);
      -- One grader's grade of one answer (a submission: session, item, test index); replaced when changed.
      CREATE TABLE grades (
        grader_id text NOT NULL REFERENCES graders (id) ON DELETE CASCADE,
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        item text NOT NULL,
        test_index integer NOT NULL,
        -- [{"points", "note"}] per rubric criterion, in the rubric's order; [] without a rubric
        criteria jsonb NOT NULL,
        points double precision NOT NULL,
        max_points double precision NOT NULL,
        pass boolean NOT NULL,
        note text NOT NULL,
        graded_at timestamptz NOT NULL,
        PRIMARY KEY (grader_id, session_id, item, test_index)
      );
      CREATE INDEX grades_by_answer ON grades (session_id, item, test_index);
      -- The researcher's final grade of an answer the graders disagree on.
      CREATE TABLE adjudications (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        item text NOT NULL,
        test_index integer NOT NULL,
        study_id text NOT NULL,
        criteria jsonb NOT NULL,
        points double precision NOT NULL,
        max_points double precision NOT NULL,
        pass boolean NOT NULL,
        note text NOT NULL,
        actor text NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (session_id, item, test_index)
      );
      CREATE INDEX adjudications_by_study ON adjudications (study_id);
    `,
  },
  {
    version: 10,
    name: "participants' responses: written descriptions, survey answers, withdrawals",
    sql: `
      -- What a participant wrote or answered besides grid and question answers; deleted with the
      -- session. kind: description (part: first | last), survey (part: ''), withdraw (part: '').
      CREATE TABLE responses (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        -- the client's id for this response, so a retried request is stored once
        key text NOT NULL,
        item text NOT NULL,
        kind text NOT NULL,
        part text NOT NULL,
        value jsonb NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (session_id, key),
        UNIQUE (session_id, item, kind, part)
      );
    `,
  },
  {
    version: 11,
    name: 'campaigns: candidate claims and recorded draws',
    sql: `
      -- A session's claim on a pool candidate: made when the session starts (in the transaction
      -- that creates it, under the campaign's advisory lock), settled when it ends. campaign: the
      -- study's campaign id, or 'study:<id>' for a study without one. participant: the platform id
      -- (core/study/draw.ts participantKey), null without one.
      -- state: held (in flight), solved, attempted (counted, not solved), released (ended without
      -- counting), skipped (never started: too little time was left, or the session ended first).
      CREATE TABLE campaign_claims (
        -- the order claims were made in (draws of a campaign are serialised by its lock)
        no bigint GENERATED ALWAYS AS IDENTITY,
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        candidate text NOT NULL,
        campaign text NOT NULL,
        study_id text NOT NULL,
        pool text NOT NULL,
        participant text,
        position integer NOT NULL,
        state text NOT NULL DEFAULT 'held',
        claimed_at timestamptz NOT NULL,
        settled_at timestamptz,
        PRIMARY KEY (session_id, candidate)
      );
      CREATE INDEX campaign_claims_by_candidate ON campaign_claims (campaign, candidate);
      CREATE INDEX campaign_claims_by_participant ON campaign_claims (campaign, participant);
      CREATE INDEX campaign_claims_by_study ON campaign_claims (study_id);
      -- The draw as it was made: its seed, the figures it was made on and what it chose, so an
      -- audit recomputes it (core/study/draw.ts drawCandidates).
      CREATE TABLE campaign_draws (
        session_id text PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        campaign text NOT NULL,
        seed integer NOT NULL,
        -- [{"pool", "count", "drawn": [ids], "figures": {"<id>": [solves, attempts, inFlight, met]}}]
        pools jsonb NOT NULL,
        at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 12,
    name: 'session digests kept as folds over the log',
    sql: `
      -- What the digest was folded from (core/analysis/fold.ts DigestFold, with the last seq it
      -- folded in): a live session's digest is extended by the events after it instead of being
      -- computed again from the whole log. Null: computed whole (a log with a gap); derived data.
      ALTER TABLE session_digests ADD COLUMN fold jsonb;
    `,
  },
  {
    version: 13,
    name: 'campaigns: per-candidate counters',
    sql: `
      -- A candidate's figures in its campaign, kept in the transactions that change them (a draw
      -- adds its claims; a settlement, an exclusion or a deletion counts the candidate's claims
      -- again), all under the campaign's advisory lock, so a draw reads one row per candidate
      -- instead of every claim the campaign ever made. drawn: every claim; held: claims not yet
      -- settled; attempts: claims settled solved or attempted, in sessions not excluded; solves:
      -- distinct participants (else sessions) with a claim settled solved, in sessions not
      -- excluded; settled: claims settled solved, attempted or released, in sessions not excluded.
      CREATE TABLE campaign_candidates (
        campaign text NOT NULL,
        candidate text NOT NULL,
        drawn integer NOT NULL DEFAULT 0,
        held integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        solves integer NOT NULL DEFAULT 0,
        settled integer NOT NULL DEFAULT 0,
        PRIMARY KEY (campaign, candidate)
      );
      INSERT INTO campaign_candidates (campaign, candidate, drawn, held, attempts, solves, settled)
        SELECT c.campaign, c.candidate, count(*)::int,
          count(*) FILTER (WHERE c.state = 'held')::int,
          count(*) FILTER (WHERE c.state IN ('solved', 'attempted') AND s.excluded_at IS NULL)::int,
          count(DISTINCT coalesce(c.participant, c.session_id)) FILTER (WHERE c.state = 'solved' AND s.excluded_at IS NULL)::int,
          count(*) FILTER (WHERE c.state IN ('solved', 'attempted', 'released') AND s.excluded_at IS NULL)::int
        FROM campaign_claims c JOIN sessions s ON s.id = c.session_id
        GROUP BY c.campaign, c.candidate;
      -- The claims a draw still reads one by one: those not settled (sessions in progress, or
      -- ended and not settled yet).
      CREATE INDEX campaign_claims_held ON campaign_claims (campaign) WHERE state = 'held';
    `,
  },
  {
    version: 14,
    name: 'arcengine games pinned: the code version of each run, and the code of every version',
    sql: `
      -- The content hash of the game's files a run was opened on (arc3/gameCode.ts); null for a
      -- remote game's run and for runs stored before versions were kept.
      ALTER TABLE game_runs ADD COLUMN code_hash text;
      -- The files of every version of an arcengine game a server ran, by content hash, so that a
      -- run is rebuilt and verified on the code it started with after the game's files changed.
      -- files: {"<path in the game's folder>": "<base64 of its bytes>"}
      CREATE TABLE game_code (
        game_id text NOT NULL,
        code_hash text NOT NULL,
        files jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (game_id, code_hash)
      );
    `,
  },
  {
    version: 15,
    name: 'the game versions a study started with',
    sql: `
      -- The version of each game of a study (an arcengine game's id and the content hash of its
      -- files, arc3/gameCode.ts; a built-in game's versioned id) when the first session that had
      -- the game started, written in that session's transaction and never changed: what the
      -- study's results and checks compare later runs with. Removed with the study.
      CREATE TABLE study_game_pins (
        study_id text NOT NULL,
        game_id text NOT NULL,
        version text NOT NULL,
        code_hash text,
        session_id text NOT NULL,
        pinned_at timestamptz NOT NULL,
        PRIMARY KEY (study_id, game_id)
      );
    `,
  },
  {
    version: 16,
    name: "a lab's people: accounts, sign-in, study membership, personal tokens, the audit trail by person",
    sql: `
      -- A member of the lab. email is kept lower-case; role: owner, researcher, designer, proctor,
      -- viewer. password_hash: scrypt (people/password.ts), null until a password is set.
      -- disabled_at: set, every session and token of the person is refused at once.
      CREATE TABLE people (
        id text PRIMARY KEY,
        email text NOT NULL UNIQUE,
        name text NOT NULL,
        role text NOT NULL,
        password_hash text,
        oidc_subject text UNIQUE,
        created_at timestamptz NOT NULL,
        disabled_at timestamptz
      );
      -- A signed-in browser: the SHA-256 of its cookie's value. Ended by sign-out (ended_at), all of a
      -- person's at once by "sign out everywhere", or by expiry.
      CREATE TABLE person_sessions (
        token_hash text PRIMARY KEY,
        person_id text NOT NULL REFERENCES people (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        ended_at timestamptz
      );
      CREATE INDEX person_sessions_by_person ON person_sessions (person_id);
      -- A personal API token: its scope is a role no wider than the person's.
      CREATE TABLE person_tokens (
        id text PRIMARY KEY,
        person_id text NOT NULL REFERENCES people (id) ON DELETE CASCADE,
        name text NOT NULL,
        role text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz
      );
      CREATE INDEX person_tokens_by_person ON person_tokens (person_id);
      -- One-time sign-in links (an invitation is the first): used once, then refused.
      CREATE TABLE signin_links (
        token_hash text PRIMARY KEY,
        person_id text NOT NULL REFERENCES people (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      );
      -- Failed sign-ins, counted per email over a window by every server alike.
      CREATE TABLE signin_failures (
        email text NOT NULL,
        at timestamptz NOT NULL
      );
      CREATE INDEX signin_failures_by_email ON signin_failures (email, at);
      -- A person's role on a study: researcher, proctor or viewer.
      CREATE TABLE study_members (
        study_id text NOT NULL,
        person_id text NOT NULL REFERENCES people (id) ON DELETE CASCADE,
        role text NOT NULL,
        added_at timestamptz NOT NULL,
        PRIMARY KEY (study_id, person_id)
      );
      CREATE INDEX study_members_by_person ON study_members (person_id);
      -- The audit trail by person: which person, with which credential (a session or token id,
      -- or 'admin-token'); study_id null for an action on the server as a whole (people, tokens).
      ALTER TABLE audit_events ALTER COLUMN study_id DROP NOT NULL;
      ALTER TABLE audit_events ADD COLUMN person_id text;
      ALTER TABLE audit_events ADD COLUMN credential text;
    `,
  },
  {
    version: 17,
    name: "a testing centre: stations, check-ins, notes on sessions, and a session's breaks",
    sql: `
      -- A browser a proctor registered as a station of a study: the SHA-256 of its secret (kept in
      -- the station's storage), its last contact and the events its outbox still held then
      -- (outbox_pending), and the participant the proctor checked in to it who has not begun yet
      -- (pending_participant, null when none).
      CREATE TABLE centre_stations (
        id text PRIMARY KEY,
        study_id text NOT NULL,
        name text NOT NULL,
        secret_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        created_by text NOT NULL,
        last_seen_at timestamptz,
        outbox_pending integer NOT NULL DEFAULT 0,
        pending_participant text,
        retired_at timestamptz,
        UNIQUE (study_id, name)
      );
      -- A session begun on a station: who sat there, when, and the station's last report of its
      -- outbox (events logged and acknowledged), which the console shows as caught up or behind.
      CREATE TABLE centre_checkins (
        session_id text PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        station_id text NOT NULL REFERENCES centre_stations (id) ON DELETE CASCADE,
        study_id text NOT NULL,
        participant text NOT NULL,
        checked_in_at timestamptz NOT NULL,
        cleared_at timestamptz
      );
      CREATE INDEX centre_checkins_by_station ON centre_checkins (station_id, checked_in_at);
      CREATE INDEX centre_checkins_by_study ON centre_checkins (study_id, checked_in_at);
      -- A proctor's note on a session, or a flag (flag true) for the researcher's attention.
      CREATE TABLE centre_notes (
        id bigserial PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        study_id text NOT NULL,
        at timestamptz NOT NULL,
        actor text NOT NULL,
        person_id text,
        text text NOT NULL,
        flag boolean NOT NULL
      );
      CREATE INDEX centre_notes_by_session ON centre_notes (session_id, at);
      -- A session's breaks, [{from, to}] in ms since the epoch (to null while paused): its budget
      -- and its item's hard limit stop meanwhile (core/study/pauses.ts).
      ALTER TABLE sessions ADD COLUMN pauses jsonb NOT NULL DEFAULT '[]';
    `,
  },
  {
    version: 18,
    name: 'Prolific: the API token sealed, the bonus ledger, submissions returned or timed out',
    sql: `
      -- Secrets the studio uses on Prolific (the API token, the webhook secret), sealed with
      -- AES-256-GCM under the server's key (prolific/secrets.ts); no route reads them back.
      CREATE TABLE prolific_secrets (
        name text PRIMARY KEY,
        sealed text NOT NULL,
        set_at timestamptz NOT NULL
      );
      -- One bulk bonus of a study, written before Prolific is asked to create it. state: intent
      -- (not created yet, or created and its id lost: never paid), created (bulk_id known, pay not
      -- sent), paying (pay sent, answer not seen), paid, unconfirmed (pay sent, no answer, and
      -- Prolific shows no sign of it yet), failed (refused: its lines are owed again).
      CREATE TABLE prolific_bonus_batches (
        id text PRIMARY KEY,
        study_id text NOT NULL,
        prolific_study_id text NOT NULL,
        state text NOT NULL,
        bulk_id text,
        error text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX prolific_bonus_batches_by_study ON prolific_bonus_batches (study_id, created_at);
      -- A participant's line in a bulk bonus, in cents of the study's currency.
      CREATE TABLE prolific_bonus_lines (
        batch_id text NOT NULL REFERENCES prolific_bonus_batches (id),
        study_id text NOT NULL,
        participant_id text NOT NULL,
        submission_id text,
        amount_cents integer NOT NULL,
        PRIMARY KEY (batch_id, participant_id)
      );
      CREATE INDEX prolific_bonus_lines_by_study ON prolific_bonus_lines (study_id, participant_id);
      -- Prolific submissions seen returned or timed out (webhook or poll), per study.
      CREATE TABLE prolific_submissions (
        study_id text NOT NULL,
        submission_id text NOT NULL,
        participant_id text NOT NULL,
        status text NOT NULL,
        via text NOT NULL,
        seen_at timestamptz NOT NULL,
        PRIMARY KEY (study_id, submission_id)
      );
      CREATE INDEX prolific_submissions_by_participant ON prolific_submissions (study_id, participant_id);
    `,
  },
  {
    version: 19,
    name: "stages: a study's current stage, each session's stage at start; participants' deletions by hash",
    sql: `
      -- The stage a session started in: 'pilot', 'main' or a name the researcher chose. Sessions
      -- stored before stages were kept are 'main', so they stay counted as they were. Results,
      -- baselines, campaign figures and payments count 'main' unless asked for another stage.
      ALTER TABLE sessions ADD COLUMN stage text NOT NULL DEFAULT 'main';
      CREATE INDEX sessions_by_study_stage ON sessions (study_id, stage);
      -- A campaign's counters (campaign_candidates, migration 13) count the 'main' stage's claims
      -- from now on; every claim stored before is of a 'main' session, so none changes.
      -- A study's current stage, which new sessions start in; no row: 'main'. Changed by one
      -- action of a researcher, in the audit trail (study.stage) in the same transaction.
      CREATE TABLE study_stages (
        study_id text PRIMARY KEY,
        stage text NOT NULL,
        changed_at timestamptz NOT NULL,
        person_id text
      );
      -- Finding one participant's sessions across studies (a deletion on request): by each
      -- platform's id as the session's params hold it (core/study/draw.ts participantKey).
      CREATE INDEX sessions_by_prolific ON sessions ((params ->> 'PROLIFIC_PID'));
      CREATE INDEX sessions_by_worker ON sessions ((params ->> 'workerId'));
      CREATE INDEX sessions_by_participant ON sessions ((params ->> 'participantId'));
    `,
  },
  {
    version: 20,
    name: 'retention: sessions whose identifiers were replaced by pseudonyms',
    sql: `
      -- When the retention job (store/retentionStore.ts) replaced the session's participant
      -- identifiers by pseudonyms; null while they are as the participant sent them.
      ALTER TABLE sessions ADD COLUMN pseudonymised_at timestamptz;
      -- The sessions the job still has to look at.
      CREATE INDEX sessions_not_pseudonymised ON sessions (study_id) WHERE pseudonymised_at IS NULL;
    `,
  },
  {
    version: 21,
    name: 'reference recordings: human runs recorded elsewhere, in named groups per game',
    sql: `
      -- A named group of reference recordings of one game (its full official id), checked by replay
      -- on the version the server ran at import (version: <id>@<code hash>). No participant
      -- identities: each recording is known by its file name and the toolkit's guid.
      CREATE TABLE reference_groups (
        game_id text NOT NULL,
        name text NOT NULL,
        version text NOT NULL,
        win_levels integer,
        created_at timestamptz NOT NULL,
        created_by text NOT NULL,
        PRIMARY KEY (game_id, name)
      );
      -- One recording file of a group: its actions (core/game/actions.ts text) and its first
      -- play's figures per level ([{completed, actions, timeMs}], core/scoring/reference.ts).
      CREATE TABLE reference_recordings (
        game_id text NOT NULL,
        group_name text NOT NULL,
        seq integer NOT NULL,
        file text NOT NULL,
        guid text,
        started_at text,
        plays integer NOT NULL,
        actions integer NOT NULL,
        state text NOT NULL,
        levels jsonb NOT NULL,
        inputs text NOT NULL,
        PRIMARY KEY (game_id, group_name, seq),
        FOREIGN KEY (game_id, group_name) REFERENCES reference_groups (game_id, name) ON DELETE CASCADE
      );
    `,
  },
  {
    version: 22,
    name: 'versions of what was played: the task a submission was judged on, the code an agent played',
    sql: `
      -- The content hash of the task a grid was judged against (core/analysis/versions.ts
      -- taskContentHash), so results split an edited task file by version; null: not recorded.
      ALTER TABLE submissions ADD COLUMN task_hash text;
      -- The code hash of the arcengine game an agent's run was opened on (as game_runs.code_hash),
      -- so a scorecard is scored against the human baselines of that version; null: not recorded.
      ALTER TABLE agent_runs ADD COLUMN code_hash text;
    `,
  },
  {
    version: 24,
    name: 'download links: the stage the files of counted figures take',
    sql: `
      -- The stage an export's counted figures (baselines, the campaign's figures, payments.csv)
      -- take: a stage's name, or 'all' for every stage. Links made before counted 'main'.
      ALTER TABLE download_tickets ADD COLUMN stage text NOT NULL DEFAULT 'main';
    `,
  },
];
