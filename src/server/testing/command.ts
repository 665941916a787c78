/**
 * How the tests start the real `arc-studio` binary (a server or a command) in a child process.
 */
import { NODE_FLAGS } from '../host/nodeFlags';

/**
 * The Node options of the servers and commands the tests start: the server's own
 * ({@link NODE_FLAGS}), and `--liftoff-only`, which compiles PGlite's WebAssembly with V8's baseline
 * compiler alone. A server or command under test mostly starts, answers a few requests and ends;
 * the optimising compiler's work on the database's hot functions then costs more than it saves
 * (twelve files of spawned servers and commands: 105 CPU-seconds against 118-130). Production
 * keeps it: a long-running server's queries run about 1.6 times as fast optimised.
 */
export const TEST_NODE_FLAGS: readonly string[] = [...NODE_FLAGS, '--liftoff-only'];

/**
 * The arguments of `node` (`process.execPath`) that run `bin/arc-studio.mjs <args>` from the
 * project folder as the tests run it.
 * @example spawn(process.execPath, arcStudioArgs(['games', 'list']), { cwd: ROOT })
 */
export function arcStudioArgs(args: readonly string[]): string[] {
  return [...TEST_NODE_FLAGS, 'bin/arc-studio.mjs', ...args];
}
