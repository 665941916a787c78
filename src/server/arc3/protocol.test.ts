/**
 * The worker protocol (protocol.ts) spoken line by line to the real `worker.py` on the official
 * engine: every answer follows its schema, errors carry their codes, and a server's `Arc3Worker`
 * refuses an answer that does not follow the protocol instead of using it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeFrameData, FrameDataWire, HelloReply, InspectReply, ListReply, ReplyEnvelope } from './protocol';
import { Arc3Worker, WORKER_SCRIPT } from './worker';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const GAMES = path.join(VENDOR, 'environment_files');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);

const tmp = mkdtempSync(path.join(tmpdir(), 'arc3-protocol-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Runs Python `lines` with the worker's module importable as `worker` and the official games'
 * folder in `sys.argv[1]`; answers the JSON its last printed line holds.
 */
function withWorkerModule(lines: readonly string[]): Record<string, unknown> {
  const script = [`import sys; sys.path.insert(0, ${JSON.stringify(path.dirname(WORKER_SCRIPT))})`, ...lines].join(
    '\n',
  );
  const out = execFileSync('python3', ['-c', script, GAMES], {
    env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

/** The worker script as the server starts it, with a function that sends one request and reads its answer line. */
function startWorker() {
  const proc = spawn('python3', [WORKER_SCRIPT, '--games', GAMES], {
    env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  let id = 0;
  const ask = async (cmd: string, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    proc.stdin.write(JSON.stringify({ id: ++id, cmd, ...fields }) + '\n');
    const { value } = await lines.next();
    const answer = ReplyEnvelope.parse(JSON.parse(value as string));
    expect(answer.id).toBe(id);
    return answer as Record<string, unknown>;
  };
  return { proc, ask };
}

describe('the worker protocol', () => {
  it('answers every command with the fields its schema names, in order, with the request id', async () => {
    const { proc, ask } = startWorker();
    try {
      expect(HelloReply.parse(await ask('hello'))).toMatchObject({ arcengine: '0.9.3', dirs: [GAMES] });
      const games = ListReply.parse(await ask('list')).games.map((g) => g.game_id);
      expect(games).toContain('ls20-9607627b');

      const opened = FrameDataWire.parse(await ask('open', { run: 'r', game_id: 'ls20-9607627b', seed: 0 }));
      const first = decodeFrameData(opened);
      expect(first).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 0, guid: 'r' });
      expect(first.frame.at(-1)).toHaveLength(64);
      const acted = decodeFrameData(FrameDataWire.parse(await ask('act', { run: 'r', action: 'ACTION1' })));
      expect(acted.frame.length).toBeGreaterThan(0);

      // replay at a later level: the same as open at that level, then the actions.
      const atLevel = FrameDataWire.parse(await ask('open', { run: 'l', game_id: 'ls20-9607627b', level: 1 }));
      expect(atLevel.levels_completed).toBe(1);
      const moved = FrameDataWire.parse(await ask('act', { run: 'l', action: 'ACTION2' }));
      const replayed = await ask('replay', {
        run: 'l2',
        game_id: 'ls20-9607627b',
        level: 1,
        actions: [{ action: 'ACTION2' }],
      });
      expect(replayed.count).toBe(1);
      const { guid: _a, ...replayedFrames } = FrameDataWire.parse(replayed);
      const { guid: _b, ...movedFrames } = moved;
      expect(replayedFrames).toEqual({ ...movedFrames, count: 1 });

      expect(InspectReply.parse(await ask('inspect', { run: 'l' }))).toMatchObject({ levels_completed: 1 });
      expect(await ask('close', { run: 'l' })).toMatchObject({ ok: true, closed: true });
      expect(await ask('act', { run: 'l', action: 'ACTION1' })).toMatchObject({
        ok: false,
        error: { code: 'unknown_run' },
      });
      expect(await ask('act', { run: 'r', action: 'JUMP' })).toMatchObject({
        ok: false,
        error: { code: 'bad_request' },
      });
      expect(await ask('open', { run: 'x', game_id: 'zz99-00000000' })).toMatchObject({
        ok: false,
        error: { code: 'unknown_game' },
      });
      expect(await ask('dance')).toMatchObject({
        ok: false,
        error: { code: 'bad_request', message: "unknown command 'dance'" },
      });
      expect(await ask('quit')).toMatchObject({ ok: true });
    } finally {
      proc.kill();
    }
  });

  it('answers requests written before the ones ahead of them were answered, each once, in order', async () => {
    const proc = spawn('python3', [WORKER_SCRIPT, '--games', GAMES], {
      env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
    try {
      const requests = [
        { id: 1, cmd: 'open', run: 'a', game_id: 'ls20-9607627b' },
        { id: 2, cmd: 'open', run: 'b', game_id: 'vc33-5430563c' },
        { id: 3, cmd: 'act', run: 'a', action: 'ACTION1' },
        { id: 4, cmd: 'act', run: 'b', action: 'ACTION6', x: 10, y: 10 },
        { id: 5, cmd: 'act', run: 'a', action: 'ACTION9' },
        { id: 6, cmd: 'act', run: 'a', action: 'ACTION2' },
      ];
      // All in one write: the worker has them all before it answers the first.
      proc.stdin.write(requests.map((r) => JSON.stringify(r) + '\n').join(''));
      const answers = [];
      for (const _ of requests) answers.push(ReplyEnvelope.parse(JSON.parse((await lines.next()).value as string)));
      expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(answers.map((a) => a.ok)).toEqual([true, true, true, true, false, true]);
      expect(FrameDataWire.parse(answers[3]).game_id).toBe('vc33-5430563c');
      expect(FrameDataWire.parse(answers[5]).guid).toBe('a');
    } finally {
      proc.kill();
    }
  });

  it('asks pydantic once per default factory, and the engine plays exactly as without it', () => {
    // Two ls20 runs on one seed, the first before the memo and the second after it; every frame,
    // state and level count compared, and how often pydantic's own check ran while they played.
    const result = withWorkerModule([
      'import hashlib, json',
      'import worker',
      'import pydantic',
      'from pydantic._internal import _fields',
      'calls = []',
      'original = _fields.takes_validated_data_argument',
      'def counted(default_factory):',
      '    calls.append(default_factory)',
      '    return original(default_factory)',
      '_fields.takes_validated_data_argument = counted',
      'w = worker.Worker([sys.argv[1]])',
      'def play():',
      '    run, fd = w.open_run({"run": "r", "game_id": "ls20-9607627b", "seed": 3})',
      '    seen = []',
      '    for i in range(60):',
      '        fd = w.perform(run, {"action": "RESET" if fd["state"] != "NOT_FINISHED" else "ACTION%d" % (1 + i * 7 % 4)})',
      '        seen.append([fd["frame_b64"], fd["state"], fd["levels_completed"], fd["available_actions"]])',
      '    return hashlib.sha256(json.dumps(seen).encode()).hexdigest()',
      'before_calls = len(calls)',
      'plain = play()',
      'plain_calls = len(calls) - before_calls',
      'memo = worker.memoize_factory_checks()',
      'again = worker.memoize_factory_checks()',
      'start = len(calls)',
      'memoized = play()',
      'from arcengine.enums import FrameDataRaw',
      'x, y = FrameDataRaw(), FrameDataRaw()',
      'x.frame.append(1)',
      'print(json.dumps({"memo": memo, "again": again, "plain_calls": plain_calls, "memo_calls": len(calls) - start,',
      '                  "same": plain == memoized, "own_lists": y.frame == [], "pydantic": pydantic.VERSION}))',
    ]);
    expect(result).toMatchObject({ memo: true, again: true, same: true, own_lists: true });
    // Without the memo, pydantic 2.13 runs the check at every action (61 of them, the opening RESET included)...
    if (String(result.pydantic).startsWith('2.13.')) expect(result.plain_calls).toBeGreaterThanOrEqual(61);
    // ...with it, once for each factory not asked about before.
    expect(result.memo_calls).toBeLessThanOrEqual(2);
  });

  it("keeps open runs out of Python's full collections, and reclaims closed runs once enough are closed", () => {
    // Twenty ls20 runs opened; which of their games the collector still walks, which closed games
    // are still alive (an ls20 run holds reference cycles: only a collection reclaims it), and the
    // same while a game's states are explored.
    const result = withWorkerModule([
      'import gc, json, weakref',
      'import worker',
      'w = worker.Worker([sys.argv[1]])',
      'def walked(games):',
      '    tracked = {id(o) for o in gc.get_objects()}',
      '    return sum(id(g) in tracked for g in games)',
      'runs = [w.open_run({"run": f"r{i}", "game_id": "ls20-9607627b", "seed": i})[0] for i in range(20)]',
      'out = {"walked_after_opens": walked([r.instance for r in runs])}',
      'closed = [weakref.ref(r.instance) for r in runs[:16]]',
      'del runs',
      'for i in range(15): w.cmd_close({"run": f"r{i}"})',
      'gc.collect()',
      'out["alive_after_15_closes"] = sum(ref() is not None for ref in closed[:15])',
      'w.cmd_close({"run": "r15"})',
      'out["alive_after_16_closes"] = sum(ref() is not None for ref in closed)',
      'out["full_collections"] = w.heap.full_collections',
      'out["state_after"] = w.cmd_act({"run": "r19", "action": "ACTION1"})["state"]',
      'out["walked_open_after"] = walked([w.runs[f"r{i}"].instance for i in range(16, 20)])',
      'w.cmd_explore_start({"run": "x", "game_id": "ls20-9607627b"})',
      'w.open_run({"run": "during", "game_id": "ls20-9607627b"})',
      'out["walked_opened_while_exploring"] = walked([w.runs["during"].instance])',
      'print(json.dumps(out))',
    ]);
    expect(result).toEqual({
      // Set aside once opened: a full collection walks none of them.
      walked_after_opens: 0,
      // Fifteen closed runs (fewer than 16) wait, even through a full collection...
      alive_after_15_closes: 15,
      // ...the sixteenth reclaims them all, at once, and the open runs play on, set aside again.
      alive_after_16_closes: 0,
      full_collections: 1,
      state_after: 'NOT_FINISHED',
      walked_open_after: 0,
      // An exploration drops copies of the game as it goes: nothing is set aside while it runs.
      walked_opened_while_exploring: 1,
    });
  });

  it('refuses, with the reason, an answer that does not follow the protocol', async () => {
    // A worker whose frames do not fill their dimensions.
    const fake = path.join(tmp, 'fake.py');
    writeFileSync(
      fake,
      [
        'import json, sys',
        'for line in sys.stdin:',
        '    req = json.loads(line)',
        '    fd = {"game_id": "g", "guid": req.get("run", ""), "frame_b64": ["AAAA"], "frame_dims": [[64, 64]], "state": "NOT_FINISHED", "levels_completed": 0, "win_levels": 1, "available_actions": [1], "full_reset": False}',
        '    if req["cmd"] == "quit":',
        '        print(json.dumps({"id": req["id"], "ok": True}), flush=True)',
        '        break',
        '    print(json.dumps({"id": req["id"], "ok": True, **fd}), flush=True)',
      ].join('\n'),
    );
    const python = path.join(tmp, 'fake-python');
    writeFileSync(python, `#!/bin/sh\nexec python3 ${JSON.stringify(fake)}\n`);
    chmodSync(python, 0o755);
    const w = new Arc3Worker({ gameDirs: [], python });
    try {
      await expect(w.open('r', 'g')).rejects.toMatchObject({
        code: 'internal',
        message: expect.stringContaining('frame 0 holds 3 cells, not 64x64'),
      });
      await expect(w.resume('r', 'g', 0, [])).rejects.toMatchObject({ code: 'internal' });
    } finally {
      await w.stop().catch(() => undefined);
    }
  });
});
