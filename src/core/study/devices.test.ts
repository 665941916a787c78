import { describe, expect, it } from 'vitest';
import { deviceProblem } from './devices';

const phone = { width: 390, height: 844, finePointer: false };
const phoneLandscape = { width: 844, height: 390, finePointer: false };
const tablet = { width: 768, height: 1024, finePointer: false };
const tabletLandscape = { width: 1024, height: 768, finePointer: false };
const laptop = { width: 1280, height: 720, finePointer: true };
const narrowWindow = { width: 900, height: 700, finePointer: true };

describe('deviceProblem', () => {
  it('tablet (the default) stops phones either way up and lets tablets and computers in', () => {
    expect(deviceProblem('tablet', phone)).toMatch(/larger screen than a phone.*tablet or a computer/);
    expect(deviceProblem('tablet', phoneLandscape)).toMatch(/larger screen/);
    for (const s of [tablet, tabletLandscape, laptop, narrowWindow]) expect(deviceProblem('tablet', s)).toBeNull();
  });

  it('desktop needs a mouse or trackpad and a window of 1024x600, and says which is missing', () => {
    expect(deviceProblem('desktop', laptop)).toBeNull();
    expect(deviceProblem('desktop', tabletLandscape)).toMatch(/mouse or trackpad/);
    expect(deviceProblem('desktop', narrowWindow)).toBe(
      'This study needs a larger window: make this window at least 1024x600 pixels (it is 900x700), or open this link on a larger screen.',
    );
    expect(deviceProblem('desktop', { width: 1280, height: 500, finePointer: true })).toMatch(/at least 1024x600/);
  });

  it('any lets every screen in', () => {
    for (const s of [phone, phoneLandscape, tablet, laptop]) expect(deviceProblem('any', s)).toBeNull();
  });
});
