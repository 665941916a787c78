/**
 * The check of a server-run game's log by the server's signatures keeps the signatures it found
 * good, so that an export checking the same log once per file signs each step once; a step whose
 * text was changed under a signature seen before is still refused.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loggedStepText } from '../../core/game/serverGame';
import type { StoredEvent } from '../../core/study/rules';
import { serverRunReplay, stepSignature } from './replayCheck';

const GAME = 'ab12-9607627b';
const KEY = randomBytes(32);

/** A run of three signed steps, level 1 completed at the last. */
function signedLog() {
  const events: StoredEvent[] = [{ seq: 0, t: 0, receivedAt: 0, kind: 'game.open', data: { game: GAME, run: 'r1' } }];
  for (let step = 0; step < 3; step++) {
    const d = { game: GAME, run: 'r1', step, action: step ? 'ACTION1' : 'RESET', level: step === 2 ? 1 : 0 };
    const data = { ...d, state: 'NOT_FINISHED', frameHash: `f${step}` };
    events.push({
      seq: step + 1,
      t: step + 1,
      receivedAt: 0,
      kind: 'game.action',
      data: { ...data, sig: stepSignature(KEY, loggedStepText('r1', GAME, data)) },
    });
  }
  return events;
}

describe('the check of a server-run log by its signatures', () => {
  it('passes a true log every time it is asked, and refuses a step changed under a signature it found good', () => {
    let keyReads = 0;
    const check = serverRunReplay(
      (id) => id === GAME,
      () => {
        keyReads++;
        return KEY;
      },
    );
    const log = signedLog();
    expect(check(GAME, log)).toEqual({ problems: [], levelsCompleted: 1, version: GAME });
    const signed = keyReads;
    expect(signed).toBe(3);
    // The same log again (as each file of an export asks): no step is signed again.
    expect(check(GAME, signedLog())).toEqual({ problems: [], levelsCompleted: 1, version: GAME });
    expect(keyReads).toBe(signed);

    // A level raised under the last step's good signature.
    const tampered = signedLog();
    tampered[3] = { ...tampered[3], data: { ...tampered[3].data, level: 7 } };
    const r = check(GAME, tampered);
    expect(r?.problems).toEqual([{ seq: 3, message: 'step 2 is not what the server answered (signature)' }]);
    expect(r?.levelsCompleted).toBe(0);
    // A check that never saw the true log says the same.
    const fresh = serverRunReplay(
      (id) => id === GAME,
      () => KEY,
    );
    expect(fresh(GAME, tampered)).toEqual(r);
  });
});
