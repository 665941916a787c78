/**
 * Test helpers for commands that read game runs: a data folder in which participants played an
 * arcengine game through the participant routes (the real API, the real store and the official
 * engine), as a study page would, before the command under test opens the folder.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createApi } from '../server/app';
import { hashToken } from '../server/people/auth';
import { TaskLibrary } from '../server/collections/collections';
import { startArc3, studioGames, type Arc3Mount, type Arc3Started } from '../server/arc3/mount';
import { openStore } from '../server/store/open';
import type { Store } from '../server/store/types';
import { seedDataDir } from '../server/store/testing';
import { gameIds } from '../server/study/studies';
import { parseActions } from '../core/game';
import { serverStepEventData, type ServerRunReply, type ServerStep } from '../core/game/serverGame';

const ROOT = path.resolve(__dirname, '../..');
/** The official engine and toolkit, vendored beside the project. */
export const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
export const PYTHONPATH = path.join(VENDOR, 'python');
/** The fixture games of the browser tests (tg01: a gatekeeper maze). */
export const FIXTURES = path.join(ROOT, 'e2e/fixtures/arc3-games');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
/** What a command under test runs with: the vendored engine, no games or database from the machine's environment. */
export const ENGINE_CHANGES = {
  ARC_STUDIO_PYTHONPATH: PYTHONPATH,
  ARC_STUDIO_ARC3_GAMES: '',
  PYTHONDONTWRITEBYTECODE: '1',
  DATABASE_URL: '',
};
export const TG01 = 'tg01-5e1f0a27';
/** The fixture's first level, as its README records it: 10 actions after the opening RESET. */
export const TG01_LEVEL_1 = 'ACTION2,ACTION2,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4,ACTION2,ACTION2,ACTION2';
/** A study of one item, `gate`, the fixture game tg01. */
export const GATE_STUDY = {
  title: 'Gatekeeper',
  consent: 'Yes.',
  completion: { code: 'G' },
  items: [{ kind: 'game', id: 'gate', game: TG01 }],
};

/** A participant-route request; throws with the answer on a refusal. */
export type Post = (url: string, token: string | null, body: unknown) => Promise<Record<string, unknown>>;

/** What a study's set-up gets: the folder's store and engine, and requests to its routes. */
export interface PlayingApi {
  readonly store: Store;
  readonly arc3: Arc3Started;
  readonly post: Post;
}

/**
 * Seeds `dataDir`, saves `study` as `studyId`, mounts the games of `games` and gives `play` the
 * routes; stops the engine and closes the store afterwards, the game steps stored.
 */
export async function withPlayingApi(
  dataDir: string,
  games: Arc3Mount,
  study: { id: string; definition: unknown },
  play: (api: PlayingApi) => Promise<void>,
): Promise<void> {
  seedDataDir(dataDir);
  const store = await openStore({ dataDir });
  const arc3 = await startArc3(games, store, () => {});
  try {
    await store.saveStudy(study.id, study.definition, 'file', Date.now());
    const app = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken('researcher-token-of-a-cli-test-set-up'),
        replay: studioGames(arc3).replay,
        games: new Set([...gameIds, ...arc3.service.ids]),
        arc3: { service: arc3.service, engine: arc3.engine },
      },
    });
    const post: Post = async (url, token, body) => {
      const res = await app.request(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    await play({ store, arc3, post });
    // Answered before stored: the steps are in before the store closes.
    await arc3.service.stepsStored();
  } finally {
    await arc3.service.stop();
    await store.close();
  }
}

/** A participant's session, their run of a game item, and the steps they were answered (the opening one first). */
export interface PlayedRun {
  readonly sessionId: string;
  readonly token: string;
  readonly opened: ServerRunReply;
  readonly steps: ServerStep[];
}

/** Starts a session of `studyId` with `params` and plays `actions` (toolkit names, comma-separated) in `item`. */
export async function playRun(
  post: Post,
  studyId: string,
  item: string,
  params: Record<string, string>,
  actions: string,
): Promise<PlayedRun> {
  const { sessionId, token } = (await post(`/studies/${studyId}/sessions`, null, { params })) as {
    sessionId: string;
    token: string;
  };
  const opened = (await post(`/sessions/${sessionId}/runs`, token, { item })) as unknown as ServerRunReply;
  const steps: ServerStep[] = [opened.steps[0]];
  for (const input of parseActions(actions))
    steps.push(
      (await post(`/sessions/${sessionId}/runs/${opened.run}/actions`, token, {
        step: steps.length,
        ...input,
      })) as unknown as ServerStep,
    );
  return { sessionId, token, opened, steps };
}

/** Sends the page's log of a played run (session start, item start, the run's opening and steps) as one batch. */
export async function logRun(post: Post, played: PlayedRun, item: string, game: string): Promise<void> {
  const events = [
    { kind: 'session.start', data: { wallClock: '2026-02-01T09:00:00.000Z' } },
    { kind: 'item.start', data: { item, kind: 'game' } },
    {
      kind: 'game.open',
      data: { game, seed: 0, run: played.opened.run, source: 'arcengine', engine: played.opened.game.engine },
    },
    ...played.steps.map((s) => ({ kind: 'game.action', data: serverStepEventData(s) })),
  ].map((e, seq) => ({ seq, t: seq * 200, ...e }));
  await post(`/sessions/${played.sessionId}/events`, played.token, { events });
}
