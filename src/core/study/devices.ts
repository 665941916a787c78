/**
 * Which screens may take part in a study (the study's `devices`): grid tasks and 64x64 games
 * need room, so a study says whether phones may join. Checked once, on the consent page, from
 * the browser's window; a participant whose screen is too small is told so before any session
 * is made.
 */

export const DEVICE_CLASSES = ['any', 'tablet', 'desktop'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/** The shorter side of a tablet's window, in CSS pixels: phones are below it (a 390x844 phone, either way up). */
export const TABLET_MIN_SIDE = 600;
/** A computer's window: at least this wide (and {@link TABLET_MIN_SIDE} high), with a mouse or trackpad. */
export const DESKTOP_MIN_WIDTH = 1024;

export interface Screen {
  /** The window's inner size in CSS pixels. */
  readonly width: number;
  readonly height: number;
  /** A mouse, trackpad or pen is the primary pointer (`(pointer: fine)`). */
  readonly finePointer: boolean;
}

/** What the participant is told when their screen may not take part, or null when it may. */
export function deviceProblem(devices: DeviceClass, screen: Screen): string | null {
  const side = Math.min(screen.width, screen.height);
  if (devices === 'tablet' && side < TABLET_MIN_SIDE) {
    return 'This study needs a larger screen than a phone: please open this link on a tablet or a computer.';
  }
  if (
    devices === 'desktop' &&
    (screen.width < DESKTOP_MIN_WIDTH || screen.height < TABLET_MIN_SIDE || !screen.finePointer)
  ) {
    return screen.finePointer
      ? `This study needs a larger window: make this window at least ${DESKTOP_MIN_WIDTH}x${TABLET_MIN_SIDE} pixels (it is ${screen.width}x${screen.height}), or open this link on a larger screen.`
      : 'This study needs a computer with a mouse or trackpad: please open this link on a computer.';
  }
  return null;
}

/** How each class reads in the studio. */
export const DEVICE_LABELS: Readonly<Record<DeviceClass, string>> = {
  tablet: 'Tablets and computers (no phones)',
  desktop: 'Computers only (mouse or trackpad, 1024x600 or larger)',
  any: 'Any device, phones included',
};
