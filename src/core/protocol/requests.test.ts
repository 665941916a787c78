/**
 * The resume of a server-run game's run at the door: the logged steps a page sends back (to
 * bring back steps the server answered but never stored) are checked for count, order, their
 * end and every field, and the page's own tail of its log always passes that check.
 */
import { describe, expect, it } from 'vitest';
import { resumeTail, type LoggedStep } from '../game/serverGame';
import { RESUME_LOGGED_MAX, RunOpenRequest } from './requests';

const RUN = '0b6c3f1e-1c1a-4a52-9a57-5b6f8d0c2e11';
const logged = (from: number, to: number): LoggedStep[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    step: from + i,
    action: 'ACTION1',
    frameHash: (from + i).toString(16).padStart(8, '0'),
  }));
const check = (resume: unknown) => RunOpenRequest.safeParse({ item: 'g', resume });
const problem = (resume: unknown) => {
  const r = check(resume);
  return r.success ? null : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
};

describe('a resume with the logged steps', () => {
  it('passes contiguous steps ending at "after", and a resume without any', () => {
    expect(problem({ run: RUN, after: 5, logged: logged(3, 5) })).toBeNull();
    expect(problem({ run: RUN, after: 5 })).toBeNull();
    expect(problem({ run: RUN, after: 5, logged: [] })).toBeNull();
    const click = { step: 1, action: 'ACTION6', x: 3, y: 63, frameHash: 'abcdef01' };
    expect(problem({ run: RUN, after: 1, logged: [click] })).toBeNull();
  });

  it('refuses a gap, a step out of order, or an end other than "after", naming the field', () => {
    const gap = [...logged(1, 2), ...logged(4, 5)];
    expect(problem({ run: RUN, after: 5, logged: gap })).toBe(
      'resume.logged.2.step: must follow step 2 (the logged steps are contiguous, oldest first)',
    );
    expect(problem({ run: RUN, after: 5, logged: [...logged(1, 5)].reverse() })).toMatch(/^resume\.logged\.1\.step/);
    expect(problem({ run: RUN, after: 6, logged: logged(1, 5) })).toBe(
      'resume.logged: must end at step 6, the "after" of the resume',
    );
  });

  it('refuses more than the cap, step 0, a bad action, hash or click', () => {
    expect(problem({ run: RUN, after: 300, logged: logged(300 - RESUME_LOGGED_MAX, 300) })).toBe(
      `resume.logged: must be at most ${RESUME_LOGGED_MAX} steps, the end of the log`,
    );
    expect(problem({ run: RUN, after: 300, logged: logged(301 - RESUME_LOGGED_MAX, 300) })).toBeNull();
    expect(problem({ run: RUN, after: 1, logged: logged(0, 1) })).toMatch(/^resume\.logged\.0\.step/);
    const one = logged(1, 1)[0];
    expect(problem({ run: RUN, after: 1, logged: [{ ...one, action: 'ACTION9' }] })).toMatch(
      /^resume\.logged\.0\.action/,
    );
    expect(problem({ run: RUN, after: 1, logged: [{ ...one, frameHash: 'ABCDEF01' }] })).toBe(
      'resume.logged.0.frameHash: must be the 8 hexadecimal digits of the answered frame',
    );
    expect(problem({ run: RUN, after: 1, logged: [{ ...one, x: 1, y: 1 }] })).toMatch(/x and y are required/);
    expect(problem({ run: RUN, after: 1, logged: [{ ...one, action: 'ACTION6', x: 64, y: 0 }] })).toMatch(
      /^resume\.logged\.0\.x/,
    );
  });
});

describe("a page's tail of its log", () => {
  it('is the contiguous end of the log, without step 0, at most the cap, and passes the door', () => {
    const steps: LoggedStep[] = [
      { step: 0, action: 'RESET', frameHash: '00000000' },
      ...logged(1, 3),
      { step: 4, action: 'ACTION6', x: 5, y: 6, frameHash: '0000000a' },
    ];
    expect(resumeTail(steps, 10).map((s) => s.step)).toEqual([1, 2, 3, 4]);
    expect(resumeTail(steps, 10)[3]).toEqual({ step: 4, action: 'ACTION6', x: 5, y: 6, frameHash: '0000000a' });
    expect(resumeTail(steps, 2).map((s) => s.step)).toEqual([3, 4]);
    // A break in the log (a step logged twice, e.g. after a replay that stopped): only what follows it.
    expect(resumeTail([...logged(1, 4), ...logged(3, 6)], 10).map((s) => s.step)).toEqual([3, 4, 5, 6]);
    expect(resumeTail([steps[0]], 10)).toEqual([]);
    const long = logged(1, 1000);
    const tail = resumeTail(long, RESUME_LOGGED_MAX);
    expect(tail).toHaveLength(RESUME_LOGGED_MAX);
    expect(problem({ run: RUN, after: 1000, logged: tail })).toBeNull();
  });
});
