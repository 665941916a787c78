/**
 * The machine's floor under a participant's step: what a round trip costs with nothing done in
 * it. A step through the participant route is at least one HTTP round trip between two processes
 * (the player's client and the server) and one pipe round trip between the server and its Python
 * worker; measured here with servers that do nothing but answer, on the same machine, in the same
 * run, they bound what the studio can reach against the engine in process:
 * `engine_ms / (engine_ms + http_ms + pipe_ms)`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { requestJson } from './http';

/** How long each floor is timed, after `WARM_UP` round trips left out. */
const FLOOR_MS = 1500;
const WARM_UP = 300;

/**
 * A Node HTTP server in a process of its own that reads each request whole and answers it with a
 * JSON body of `?bytes=` bytes; prints its port.
 */
const ANSWERING_SERVER = `
const http = require('node:http');
const bodies = new Map();
const server = http.createServer((req, res) => {
  const bytes = Number(new URL(req.url, 'http://x').searchParams.get('bytes')) || 2;
  let body = bodies.get(bytes);
  if (!body) bodies.set(bytes, (body = JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 10)) })));
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** Python answering each line on its standard input with the same line, as the worker answers a request. */
const ECHO_WORKER = `
import sys
out = sys.stdout
for line in sys.stdin:
    out.write(line)
    out.flush()
`;

async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the floor's server exited (${code}) before it listened`);
    }),
  ])) as [string];
  lines.close();
  return line;
}

/** Times `roundTrip` back to back: the mean milliseconds of one, after a warm-up. */
async function timeBackToBack(roundTrip: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await roundTrip();
  let n = 0;
  const t0 = performance.now();
  const end = t0 + FLOOR_MS;
  while (performance.now() < end) {
    await roundTrip();
    n++;
  }
  return (performance.now() - t0) / n;
}

/**
 * One kept-alive HTTP round trip to a server in another process that does nothing but answer: a
 * request the size of `requestBytes` and an answer of `answerBytes`, sent and parsed by the same
 * client code as the studio's steps. Mean milliseconds.
 */
export async function httpFloorMs(requestBytes: number, answerBytes: number): Promise<number> {
  const child = spawn(process.execPath, ['-e', ANSWERING_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = Number(await firstLine(child));
    const url = `http://127.0.0.1:${port}/?bytes=${Math.round(answerBytes)}`;
    const payload = JSON.stringify({ pad: 'x'.repeat(Math.max(0, Math.round(requestBytes) - 10)) });
    return await timeBackToBack(async () => {
      const r = await requestJson(url, 'POST', payload);
      if (r.status !== 200) throw new Error(`the floor's server answered ${r.status}`);
    });
  } finally {
    child.kill();
  }
}

/** One round trip of a short line through a pipe to a Python process that only echoes it. Mean milliseconds. */
export async function pipeFloorMs(python: string): Promise<number> {
  const child = spawn(python, ['-u', '-c', ECHO_WORKER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let waiting: { resolve: () => void; reject: (e: Error) => void } | null = null;
  const exited = (code: number | null) =>
    waiting?.reject(new Error(`the floor's Python exited (${code}) instead of answering`));
  child.once('exit', exited);
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', () => {
    const w = waiting;
    waiting = null;
    w?.resolve();
  });
  try {
    const line = `${JSON.stringify({ id: 1, op: 'step', run: 'r', action: 'ACTION1' })}\n`;
    return await timeBackToBack(
      () =>
        new Promise<void>((resolve, reject) => {
          waiting = { resolve, reject };
          child.stdin!.write(line);
        }),
    );
  } finally {
    child.off('exit', exited);
    lines.close();
    child.kill();
  }
}
