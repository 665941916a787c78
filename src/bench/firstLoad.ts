/**
 * A participant's first load on a phone: the time from opening a study link to its first button
 * on the screen, and the bytes the phone downloaded, over emulated mobile networks (Chromium's
 * DevTools network emulation: bandwidth and round-trip time per request, as DevTools' throttling
 * presets apply them). Every load starts from an empty cache, as a Prolific participant's does.
 */
import type { Browser, CDPSession } from '@playwright/test';
import type { BenchResult } from './result';
import { percentile } from './measure';
import { openBrowserBench } from './browser';

/** A network to emulate. Throughputs in bits per second, latency the added round trip in ms. */
interface Network {
  name: string;
  downBitsPerSecond: number;
  upBitsPerSecond: number;
  latencyMs: number;
  /** The time to the first button this network must stay under. */
  goalMs: number;
}

/** DevTools' "4G" and "Fast 3G" presets (download, upload, round trip). */
const NETWORKS: readonly Network[] = [
  { name: '4g', downBitsPerSecond: 9_000_000, upBitsPerSecond: 9_000_000, latencyMs: 85, goalMs: 1000 },
  { name: 'fast_3g', downBitsPerSecond: 1_600_000, upBitsPerSecond: 750_000, latencyMs: 150, goalMs: 2000 },
];

/** Loads per network: the median is reported, the first load of a fresh server being slower. */
const LOADS = 5;

// Runs in the page before its own scripts: notes the time (from the start of navigation) at which
// a button is first in the page and drawn, the moment a participant can act.
const FIRST_BUTTON_PROBE = `(() => {
  const seen = () => {
    if (window.__firstButton !== undefined || !document.querySelector('button')) return false;
    window.__firstButton = null;
    requestAnimationFrame(() => { window.__firstButton = performance.now(); });
    return true;
  };
  new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); })
    .observe(document, { childList: true, subtree: true });
})()`;

interface Load {
  firstButtonMs: number;
  /** Bytes received when the first button was seen (headers included, as sent over the network). */
  bytesToButton: number;
  /** Bytes received once the page went quiet: what it fetched for its first screen and after it. */
  bytes: number;
  requests: number;
}

async function loadOnce(browser: Browser, url: string, network: Network): Promise<Load> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
  });
  try {
    const page = await context.newPage();
    const cdp: CDPSession = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: network.latencyMs,
      downloadThroughput: network.downBitsPerSecond / 8,
      uploadThroughput: network.upBitsPerSecond / 8,
    });
    let bytes = 0;
    let requests = 0;
    cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
      bytes += e.encodedDataLength;
      requests++;
    });
    await page.addInitScript(FIRST_BUTTON_PROBE);
    await page.goto(url);
    // A string evaluated through DevTools: the app's security policy forbids the page's own eval,
    // which waitForFunction uses.
    const firstButtonMs = (await page.evaluate(
      `new Promise((resolve) => { const check = () => typeof window.__firstButton === 'number' ? resolve(window.__firstButton) : requestAnimationFrame(check); check(); })`,
    )) as number;
    const bytesToButton = bytes;
    // What the page fetched for its first screen, scripts it preloads included.
    await page.waitForLoadState('networkidle');
    return { firstButtonMs, bytesToButton, bytes, requests };
  } finally {
    await context.close();
  }
}

export async function* run(): AsyncIterable<BenchResult> {
  const b = await openBrowserBench();
  try {
    const browser = b.page.context().browser()!;
    const url = `${b.url}/s/sample?PROLIFIC_PID=bench`;
    // One load before the measured ones, so the server's first answers (its caches, the JIT) are not
    // counted against the network.
    await loadOnce(browser, url, NETWORKS[0]);
    for (const network of NETWORKS) {
      const loads: Load[] = [];
      for (let i = 0; i < LOADS; i++) loads.push(await loadOnce(browser, `${url}-${network.name}-${i}`, network));
      const prefix = `first_load.phone_390.${network.name}`;
      yield {
        name: `${prefix}.first_button.p50`,
        value: percentile(
          loads.map((l) => l.firstButtonMs),
          50,
        ),
        unit: 'ms',
      };
      yield { name: `${prefix}.first_button.max`, value: Math.max(...loads.map((l) => l.firstButtonMs)), unit: 'ms' };
      yield { name: `${prefix}.first_button.goal`, value: network.goalMs, unit: 'ms' };
      yield {
        name: `${prefix}.transferred_to_first_button`,
        value:
          percentile(
            loads.map((l) => l.bytesToButton),
            50,
          ) / 1024,
        unit: 'KiB',
      };
      yield {
        name: `${prefix}.transferred`,
        value:
          percentile(
            loads.map((l) => l.bytes),
            50,
          ) / 1024,
        unit: 'KiB',
      };
      yield {
        name: `${prefix}.requests`,
        value: percentile(
          loads.map((l) => l.requests),
          50,
        ),
        unit: 'requests',
      };
    }
  } finally {
    await b.close();
  }
}
