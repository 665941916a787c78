/**
 * A remote ARC-AGI-3 server as a game source: the official online API, or a researcher's local
 * toolkit server (`Arcade(operation_mode=OFFLINE, environments_dir=...).listen_and_serve(...)`),
 * reached over the ARC-AGI-3 REST protocol. The API key stays here on the server; participants
 * only ever see frames.
 *
 * Routes used: `GET /api/games`, `POST /api/scorecard/open` (answers `{card_id}`),
 * `POST /api/cmd/RESET` and `/api/cmd/ACTION1..7` (body `{game_id, card_id, guid, x?, y?}`;
 * answers the FrameData fields plus `guid` and `action_input`), `POST /api/scorecard/close`.
 * Every request carries `X-API-Key` when a key is set, and the cookies the server set earlier
 * (the official API pins a scorecard's games to one backend by cookie, as its toolkit does).
 *
 * Choices and differences from the arcengine pool, on purpose:
 * - One scorecard per run: each participant's play is its own card on the server, and closing a
 *   run closes its card. `resume` opens a new card and a new play (the server cannot rebuild the
 *   old one); on the official API the replayed actions count on that new card.
 * - WARNING: the toolkit's server makes a new game on every request whose `game_id` is not the
 *   exact full id of the play (a short id never matches), so ids are resolved against the
 *   server's list before RESET and every request sends the full id.
 * - REST answers never carry `full_reset`. It is computed here the way the engine's
 *   `handle_reset` decides it: a RESET is a full reset when no counted action was made since the
 *   level began (game start, a level completed, or a level reset) or when the game was won; the
 *   opening RESET is always one. A server started with `ONLY_RESET_LEVELS=true`, or a game that
 *   changes level by itself without completing one, would make this differ.
 * - After GAME_OVER or WIN the engine answers a non-RESET action with an empty frame; the REST
 *   server turns that into a 400 "has not been started". That refusal is answered here as the
 *   engine's empty frame data, so runs behave the same with both sources.
 * - `seed` cannot be sent over REST; the server plays its own (the toolkit's is 0).
 * - A server that loses a run's play (it restarted, or closed an idle scorecard) answers its
 *   actions "not found": the run is then rebuilt on a new scorecard and play by replaying the
 *   actions it made since its opening RESET, as the worker pool rebuilds a run after a crash, and
 *   the action is sent again. The rebuilt play must end on the frame the run had; when it does not,
 *   or the server cannot rebuild it, the action is refused with `upstream_lost` (the run's stored
 *   steps are kept).
 * - The list has `level_count` null until a play of the game told its `win_levels`.
 */
import type { Arc3Source } from './source';
import { actionBody, toFrameData } from './remoteWire';
import { Arc3Error, resolveGameId, type Arc3Action, type Arc3FrameData, type Arc3GameInfo } from './worker';

export interface RemoteArc3Options {
  /** The server, e.g. `https://three.arcprize.org` or `http://127.0.0.1:8001` (no trailing `/api`). */
  baseUrl: string;
  /** Sent as `X-API-Key`. Default: `ARC_API_KEY`; none is sent when both are empty. */
  apiKey?: string;
  /** Per-request timeout. Default 10 s (the toolkit's own). */
  timeoutMs?: number;
  /** How long the game list is reused. Default 10 s. */
  listTtlMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /**
   * The server's log: one line when the remote server stops answering and one when it answers
   * again, and a line when a run is rebuilt on a new play and how that ended. Default: none.
   */
  log?: (line: string) => void;
  /** The clock, ms since the epoch, for how long an outage lasted. Default `Date.now`. */
  now?: () => number;
}

interface RemoteRun {
  gameId: string;
  cardId: string;
  guid: string;
  last: Arc3FrameData;
  /** Counted (non-RESET, non-refused) actions since the current level began, as the engine counts them. */
  levelActions: number;
  /** Actions of one run are sent one after another: order is the game. */
  queue: Promise<unknown>;
  /** Every action the play answered since its opening RESET, to rebuild it on a new play. */
  readonly actions: Arc3Action[];
}

const DEFAULT_FPS = 5;

/**
 * Plays the games of an ARC-AGI-3 REST server.
 * @example
 *   const source = new RemoteArc3Source({ baseUrl: 'http://127.0.0.1:8001' });
 *   const { gameId, frame } = await source.open('run-1', 'ls20');   // gameId 'ls20-9607627b'
 *   const next = await source.act('run-1', { action: 'ACTION1' });
 */
export class RemoteArc3Source implements Arc3Source {
  readonly kind = 'remote' as const;
  readonly label: string;
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly listTtlMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly runs = new Map<string, RemoteRun>();
  private readonly cookies = new Map<string, string>();
  private readonly levelCounts = new Map<string, number>();
  private listed: { at: number; games: Promise<Arc3GameInfo[]> } | null = null;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  /** Since when the server has not answered, and why; null while it answers. */
  private down: { since: number; why: string } | null = null;

  constructor(opts: RemoteArc3Options) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new Arc3Error(
        'bad_request',
        `"${opts.baseUrl}" is not a URL; give the ARC-AGI-3 server as http(s)://host[:port]`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Arc3Error(
        'bad_request',
        `"${opts.baseUrl}" is not an http(s) URL; give the ARC-AGI-3 server as http(s)://host[:port]`,
      );
    }
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.label = this.baseUrl;
    this.apiKey = opts.apiKey ?? process.env.ARC_API_KEY ?? '';
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.listTtlMs = opts.listTtlMs ?? 10_000;
    this.fetchFn = opts.fetch ?? fetch;
    this.log = opts.log ?? (() => {});
    this.now = opts.now ?? Date.now;
  }

  /** Notes that the server did not answer: logged once per outage, not once per request. */
  private unanswered(why: string): void {
    if (this.down) return;
    this.down = { since: this.now(), why };
    this.log(
      `The ARC-AGI-3 server at ${this.baseUrl} is not answering (${why}): its games cannot be opened or played until it is back (participants are asked to try again). Another line follows when it answers.`,
    );
  }

  /** Notes that the server answered: ends an outage, with how long it lasted. */
  private answered(): void {
    if (!this.down) return;
    const seconds = Math.max(0, Math.round((this.now() - this.down.since) / 1000));
    this.down = null;
    this.log(`The ARC-AGI-3 server at ${this.baseUrl} answers again, after ${seconds} s without an answer.`);
  }

  /** How many runs are open. */
  get runCount(): number {
    return this.runs.size;
  }

  /** The server's games; the answer is reused for `listTtlMs`. */
  async list(): Promise<Arc3GameInfo[]> {
    const now = Date.now();
    if (!this.listed || now - this.listed.at > this.listTtlMs) {
      const games = this.fetchGames();
      this.listed = { at: now, games };
      // A failed listing is not kept: the next call asks again.
      games.catch(() => {
        if (this.listed?.games === games) this.listed = null;
      });
    }
    const games = await this.listed.games;
    return games.map((g) => ({ ...g, level_count: this.levelCounts.get(g.game_id) ?? g.level_count }));
  }

  async open(runId: string, gameId: string, _seed = 0): Promise<{ gameId: string; frame: Arc3FrameData }> {
    const full = resolveGameId(
      gameId,
      (await this.list()).map((g) => g.game_id),
    );
    const run = await this.start(runId, full);
    return { gameId: full, frame: run.last };
  }

  async resume(runId: string, gameId: string, _seed: number, actions: readonly Arc3Action[]): Promise<Arc3FrameData> {
    const full = resolveGameId(
      gameId,
      (await this.list()).map((g) => g.game_id),
    );
    const run = await this.start(runId, full);
    try {
      for (const action of actions) await this.act(runId, action);
    } catch (e) {
      if (this.runs.get(runId) === run) await this.close(runId);
      throw e;
    }
    return run.last;
  }

  act(runId: string, action: Arc3Action): Promise<Arc3FrameData> {
    const run = this.runs.get(runId);
    if (!run) return Promise.reject(new Arc3Error('unknown_run', `no open run ${runId}; open it first`));
    let body: Record<string, unknown>;
    try {
      body = actionBody(action);
    } catch (e) {
      return Promise.reject(e);
    }
    const result = run.queue.then(() => this.send(runId, run, action, body));
    run.queue = result.catch(() => undefined);
    return result;
  }

  /** Forgets the run and closes its scorecard; a server that cannot be reached is not an error here (it closes idle cards itself). */
  async close(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return;
    this.runs.delete(runId);
    await run.queue;
    await this.request('POST', '/api/scorecard/close', { card_id: run.cardId }).catch(() => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.runs.keys()].map((id) => this.close(id)));
    this.listed = null;
  }

  /** Opens a scorecard and a new play of `full` for `runId` (replacing a run of that id). */
  private async start(runId: string, full: string): Promise<RemoteRun> {
    await this.close(runId);
    const card = await this.request('POST', '/api/scorecard/open', { tags: ['arc-studio'], opaque: { run: runId } });
    const cardId = card.card_id;
    if (typeof cardId !== 'string' || !cardId) {
      throw new Arc3Error(
        'internal',
        `the ARC-AGI-3 server at ${this.baseUrl} opened a scorecard without a card_id; is it an ARC-AGI-3 server?`,
      );
    }
    try {
      // No guid: the server makes a new play and answers its guid with the opening frame.
      const answer = await this.request('POST', '/api/cmd/RESET', { game_id: full, card_id: cardId });
      const frame = toFrameData(answer, this.baseUrl, true);
      if (frame.game_id !== full) {
        throw new Arc3Error(
          'internal',
          `the ARC-AGI-3 server at ${this.baseUrl} started ${frame.game_id || 'an unnamed game'} when asked for ${full}`,
        );
      }
      if (!frame.guid)
        throw new Arc3Error('internal', `the ARC-AGI-3 server at ${this.baseUrl} started ${full} without a guid`);
      const run: RemoteRun = {
        gameId: full,
        cardId,
        guid: frame.guid,
        last: frame,
        levelActions: 0,
        queue: Promise.resolve(),
        actions: [],
      };
      this.runs.set(runId, run);
      this.levelCounts.set(full, frame.win_levels);
      return run;
    } catch (e) {
      await this.request('POST', '/api/scorecard/close', { card_id: cardId }).catch(() => undefined);
      throw e;
    }
  }

  private async send(
    runId: string,
    run: RemoteRun,
    action: Arc3Action,
    body: Record<string, unknown>,
  ): Promise<Arc3FrameData> {
    if (this.runs.get(runId) !== run) throw new Arc3Error('unknown_run', `run ${runId} was closed; open it again`);
    let frame: Arc3FrameData;
    try {
      frame = await this.perform(runId, run, action, body);
    } catch (e) {
      if (!lostPlay(e)) throw e;
      await this.rebuild(runId, run);
      frame = await this.perform(runId, run, action, body);
    }
    run.actions.push(action);
    return frame;
  }

  /**
   * Starts a new scorecard and play for `run` and replays its actions on it, checking that the
   * play ends on the frame the run had.
   */
  private async rebuild(runId: string, run: RemoteRun): Promise<void> {
    this.log(
      `Run ${runId} of ${run.gameId}: the ARC-AGI-3 server at ${this.baseUrl} lost its play (it restarted, or closed the scorecard); rebuilding it on a new scorecard from its ${run.actions.length} actions.`,
    );
    try {
      await this.replayOnNewPlay(runId, run);
    } catch (e) {
      this.log(`Run ${runId} of ${run.gameId} could not be rebuilt: ${(e as Error).message}.`);
      throw e;
    }
    this.log(`Run ${runId} of ${run.gameId} rebuilt on scorecard ${run.cardId}, on the frame it had; it goes on.`);
  }

  private async replayOnNewPlay(runId: string, run: RemoteRun): Promise<void> {
    const had = run.last;
    const lost = (why: string) =>
      new Arc3Error(
        'upstream_lost',
        `the ARC-AGI-3 server at ${this.baseUrl} lost this run's game (it restarted, or closed the scorecard) and it could not be rebuilt: ${why}. The actions made so far are kept; open the game again to go on from its start`,
      );
    try {
      const card = await this.request('POST', '/api/scorecard/open', {
        tags: ['arc-studio'],
        opaque: { run: runId, rebuilt: true },
      });
      if (typeof card.card_id !== 'string' || !card.card_id)
        throw lost('the server opened a scorecard without a card_id');
      const opening = toFrameData(
        await this.request('POST', '/api/cmd/RESET', { game_id: run.gameId, card_id: card.card_id }),
        this.baseUrl,
        true,
      );
      if (!opening.guid) throw lost('the server started the game without a guid');
      Object.assign(run, { cardId: card.card_id, guid: opening.guid, last: opening, levelActions: 0 });
      for (const a of run.actions) await this.perform(runId, run, a, actionBody(a));
    } catch (e) {
      throw e instanceof Arc3Error && e.code === 'upstream_lost' ? e : lost(e instanceof Error ? e.message : String(e));
    }
    if (
      JSON.stringify(run.last.frame) !== JSON.stringify(had.frame) ||
      run.last.levels_completed !== had.levels_completed ||
      run.last.state !== had.state
    ) {
      throw lost(
        `replaying its ${run.actions.length} actions gave another frame than the one the run had (a game that is not deterministic)`,
      );
    }
  }

  /** One action on the run's current play, with its bookkeeping. */
  private async perform(
    runId: string,
    run: RemoteRun,
    action: Arc3Action,
    body: Record<string, unknown>,
  ): Promise<Arc3FrameData> {
    const before = run.last;
    const ended = before.state === 'GAME_OVER' || before.state === 'WIN';
    let frame: Arc3FrameData;
    try {
      const answer = await this.request('POST', `/api/cmd/${action.action}`, {
        game_id: run.gameId,
        card_id: run.cardId,
        guid: run.guid,
        ...body,
      });
      frame = toFrameData(answer, this.baseUrl, false);
    } catch (e) {
      // The engine answers a non-RESET action after the end with an empty frame, which the REST
      // server refuses as "not started": answer what the engine answers (its empty FrameData
      // carries no level counts, so they are 0 there too).
      if (ended && action.action !== 'RESET' && e instanceof RemoteRefusal && e.kind === 'GAME_NOT_STARTED_ERROR') {
        return {
          game_id: run.gameId,
          guid: run.guid,
          frame: [],
          state: before.state,
          levels_completed: 0,
          win_levels: 0,
          available_actions: before.available_actions,
          full_reset: false,
        };
      }
      throw e instanceof RemoteRefusal ? e.error : e;
    }
    if (frame.game_id !== run.gameId || (frame.guid && frame.guid !== run.guid)) {
      throw new Arc3Error(
        'internal',
        `the ARC-AGI-3 server at ${this.baseUrl} answered for ${frame.game_id} ${frame.guid} instead of run ${runId}'s play (${run.gameId} ${run.guid})`,
      );
    }
    frame.guid = run.guid;
    if (action.action === 'RESET') {
      frame.full_reset = run.levelActions === 0 || before.state === 'WIN';
      run.levelActions = 0;
    } else if (!(ended && frame.frame.length === 0)) {
      run.levelActions = frame.levels_completed > before.levels_completed ? 0 : run.levelActions + 1;
    }
    if (frame.frame.length > 0) run.last = frame;
    this.levelCounts.set(run.gameId, frame.win_levels);
    return frame;
  }

  private async fetchGames(): Promise<Arc3GameInfo[]> {
    const answer: unknown = await this.request('GET', '/api/games');
    if (!Array.isArray(answer)) {
      throw new Arc3Error(
        'internal',
        `the ARC-AGI-3 server at ${this.baseUrl} answered /api/games with something other than a list; is it an ARC-AGI-3 server?`,
      );
    }
    return answer
      .filter(
        (g: unknown): g is Record<string, unknown> =>
          typeof g === 'object' &&
          g !== null &&
          typeof (g as { game_id?: unknown }).game_id === 'string' &&
          (g as { game_id: string }).game_id !== '',
      )
      .map((g) => {
        const id = g.game_id as string;
        const dash = id.indexOf('-');
        return {
          game_id: id,
          game: dash < 0 ? id : id.slice(0, dash),
          version: dash < 0 ? '' : id.slice(dash + 1),
          title: typeof g.title === 'string' && g.title ? g.title : id,
          tags: Array.isArray(g.tags) ? g.tags.filter((t): t is string => typeof t === 'string') : [],
          default_fps: typeof g.default_fps === 'number' && g.default_fps > 0 ? g.default_fps : DEFAULT_FPS,
          baseline_actions: [],
          class_name: '',
          dir: this.baseUrl,
          level_count: null,
        };
      })
      .sort((a, b) => a.game_id.localeCompare(b.game_id));
  }

  /** One request; answers the parsed JSON or throws an `Arc3Error` (or a `RemoteRefusal` for a game's refusal). */
  private async request(
    method: 'GET' | 'POST',
    route: string,
    body?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body) headers['Content-Type'] = 'application/json';
    if (this.apiKey) headers['X-API-Key'] = this.apiKey;
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const where = `${method} ${this.baseUrl}${route}`;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchFn(this.baseUrl + route, {
        method,
        headers,
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        this.unanswered(`no answer within ${this.timeoutMs} ms`);
        throw new Arc3Error(
          'timeout',
          `the ARC-AGI-3 server did not answer ${where} within ${this.timeoutMs} ms; check that it is up, or try again`,
        );
      }
      const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
      const why = cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
      this.unanswered(why);
      throw new Arc3Error(
        'internal',
        `cannot reach the ARC-AGI-3 server at ${this.baseUrl} (${why}); check that it is running and that the URL is right`,
      );
    }
    this.keepCookies(res);
    // A 5xx is a server that is up but failing (or a proxy in front of one that is down).
    if (res.status >= 500) this.unanswered(`HTTP ${res.status}`);
    else this.answered();
    let json: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = text ? JSON.parse(text) : null;
      if (typeof parsed === 'object') json = parsed as Record<string, unknown> | null;
    } catch {
      json = null;
    }
    if (res.ok) {
      if (json === null) {
        throw new Arc3Error(
          'internal',
          `the ARC-AGI-3 server answered ${where} with something that is not JSON (${text.slice(0, 120)}); is ${this.baseUrl} an ARC-AGI-3 server?`,
        );
      }
      return json;
    }
    const kind = typeof json?.error === 'string' ? json.error : '';
    const message =
      typeof json?.message === 'string'
        ? json.message
        : typeof json?.error === 'string'
          ? json.error
          : text.slice(0, 200);
    if (res.status === 401 || res.status === 403) {
      throw new Arc3Error(
        'internal',
        `the ARC-AGI-3 server at ${this.baseUrl} refused the API key (HTTP ${res.status}${message ? `: ${message}` : ''}); set ARC_API_KEY to a valid key`,
      );
    }
    if (res.status === 429) {
      throw new Arc3Error(
        'internal',
        `the ARC-AGI-3 server at ${this.baseUrl} is limiting requests (HTTP 429); slow down and try again`,
      );
    }
    if (/game \S+ not found/.test(message)) {
      throw new Arc3Error(
        'unknown_game',
        `the ARC-AGI-3 server at ${this.baseUrl} has no such game (${message}); list its games to see which it has`,
      );
    }
    if (res.status >= 500) {
      throw new Arc3Error(
        'internal',
        `the ARC-AGI-3 server failed on ${where} (HTTP ${res.status}${message ? `: ${message}` : ''}); try again, or check the server's log`,
      );
    }
    const error = new Arc3Error(
      'bad_request',
      `the ARC-AGI-3 server refused ${where} (HTTP ${res.status}${message ? `: ${message}` : ''})`,
    );
    if (kind === 'GAME_NOT_STARTED_ERROR') throw new RemoteRefusal(kind, error);
    throw error;
  }

  private keepCookies(res: Response): void {
    const headers = res.headers as Headers & { getSetCookie?: () => string[] };
    const lines = headers.getSetCookie?.() ?? (headers.get('set-cookie') ? [headers.get('set-cookie')!] : []);
    for (const line of lines) {
      const pair = line.split(';', 1)[0];
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
}

/** Whether an error says the server no longer has the run's play or scorecard. */
function lostPlay(e: unknown): boolean {
  if (!(e instanceof Arc3Error)) return false;
  return (
    e.code === 'unknown_game' ||
    (e.code === 'bad_request' && /card_id `[^`]*` not found|scorecard \S+ not found/.test(e.message))
  );
}

/** A refusal the source may answer itself (see `send`); carries the error to throw otherwise. */
class RemoteRefusal extends Error {
  constructor(
    readonly kind: string,
    readonly error: Arc3Error,
  ) {
    super(error.message);
  }
}
