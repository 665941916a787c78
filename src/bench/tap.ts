/**
 * A finger's tap in Chromium, delivered the way a touch screen delivers it: stamped when it is
 * sent to the page and dispatched at once.
 *
 * WARNING: Playwright's taps (`page.touchscreen.tap`, `locator.tap()`) send DevTools'
 * `Input.dispatchTouchEvent`, which stamps the touch's `timeStamp` first and then holds the event
 * until the page has produced a new frame ("so that the compositor is up to date", in Chromium's
 * `InputHandler::DispatchWebTouchEvent`) before it reaches the page. That wait, up to a display
 * frame and more when the tap comes just after one (as after `locator.tap()`'s own checks, made
 * in animation frames), counts as time before the app's `pointerdown` handler runs, though no
 * finger's touch waits for it and a mouse click sent the same way does not. From the touch's
 * timestamp to a `pointerdown` listener on a 390x844 touch page (flux's pad and frame alike, 24
 * taps each, load 4.5-6 per core), p50: 10-14 ms by `locator.tap()`, 1.4-8.7 ms by
 * `page.touchscreen.tap`, 1.2-1.3 ms by this tap; the input benchmark prints it as `tap_delivery`. `Input.synthesizeTapGesture` goes through Chromium's synthetic pointer
 * driver instead, as a touch screen's events do: it stamps the touch as it forwards it.
 */
import type { CDPSession, Locator, Page } from '@playwright/test';

const sessions = new WeakMap<Page, Promise<CDPSession>>();

function session(page: Page): Promise<CDPSession> {
  let s = sessions.get(page);
  if (!s) {
    s = page.context().newCDPSession(page);
    sessions.set(page, s);
  }
  return s;
}

/**
 * Taps page point (x, y), in CSS pixels of the window, and resolves once the finger has lifted.
 * Needs a context with `hasTouch`; Chromium only.
 *
 * @example
 * const box = (await page.getByTestId('game-canvas').boundingBox())!;
 * await fingerTap(page, box.x + box.width / 2, box.y + box.height / 2);
 */
export async function fingerTap(page: Page, x: number, y: number): Promise<void> {
  // duration 0: the finger lifts right after it lands; the app acts on the press.
  await (await session(page)).send('Input.synthesizeTapGesture', { x, y, duration: 0, gestureSourceType: 'touch' });
}

/** Taps the middle of `target`, scrolled into the window first. */
export async function fingerTapOn(target: Locator): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  if (!box) throw new Error(`fingerTapOn: ${target.toString()} is not on the page`);
  await fingerTap(target.page(), box.x + box.width / 2, box.y + box.height / 2);
}
