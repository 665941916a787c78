import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import type { TaskPair } from '../../core/formats/arcTask';
import { DemoPairs } from './DemoPairs';

/**
 * The demonstrations beside the test (a column on a wide screen) or above it (a strip that
 * scrolls sideways on a tablet or a phone). A strip says how many examples there are and, while
 * some lie beyond its right edge, shows it: the edge fades and a "More examples" button scrolls to
 * them, so a participant never takes the first two or three for all of them.
 */
export function DemoStrip({
  pairs,
  showSymbols,
  wide,
  phone,
  width,
}: {
  pairs: readonly TaskPair[];
  showSymbols: boolean;
  /** A column beside the test, scrolled downwards, instead of a strip. */
  wide: boolean;
  phone: boolean;
  /** The column's CSS width when `wide`. */
  width: string;
}) {
  const stripRef = useRef<HTMLDivElement>(null);
  const [hidden, setHidden] = useState(0);

  // How many examples are not wholly in view to the right: measured on scroll and on resize.
  const measure = useCallback(() => {
    const strip = stripRef.current;
    if (!strip || wide) return setHidden(0);
    const right = strip.getBoundingClientRect().right;
    const items = strip.querySelectorAll('[data-testid="demo-pair"]');
    let beyond = 0;
    for (const item of items) if (item.getBoundingClientRect().right > right + 1) beyond++;
    setHidden(beyond);
  }, [wide]);
  useLayoutEffect(() => {
    const strip = stripRef.current;
    measure();
    if (!strip) return;
    const observer = new ResizeObserver(measure);
    observer.observe(strip);
    strip.addEventListener('scroll', measure, { passive: true });
    return () => {
      observer.disconnect();
      strip.removeEventListener('scroll', measure);
    };
  }, [measure, pairs]);

  const showMore = () => {
    const strip = stripRef.current;
    if (strip) strip.scrollBy({ left: strip.clientWidth * 0.8, behavior: 'smooth' });
  };

  return (
    <aside
      className="flex shrink-0 flex-col overflow-hidden"
      style={wide ? { width } : undefined}
      data-testid="demonstrations"
    >
      <div className="mb-2 flex min-h-6 items-center justify-between gap-2">
        <h2 className="text-xs font-semibold uppercase tracking-wider text-slate-400">
          Demonstrations{' '}
          <span className="font-normal normal-case tracking-normal text-slate-400" data-testid="demo-count">
            ({pairs.length} {pairs.length === 1 ? 'example' : 'examples'})
          </span>
        </h2>
        {hidden > 0 && (
          <button
            type="button"
            onClick={showMore}
            className="rounded border border-slate-700 px-2 py-0.5 text-xs text-slate-200 hover:bg-slate-800"
            data-testid="demo-more"
          >
            More examples ({hidden}) ›
          </button>
        )}
      </div>
      <div className="relative min-h-0 flex-1">
        <div
          ref={stripRef}
          className={`min-h-0 pr-1 ${wide ? 'h-full overflow-y-auto' : 'overflow-x-auto pb-1'}`}
          tabIndex={0}
          role="region"
          aria-label="Demonstrations"
        >
          <DemoPairs pairs={pairs} showSymbols={showSymbols} compact={!wide} small={phone} />
        </div>
        {hidden > 0 && (
          // The cut edge fades out, as a strip that goes on does.
          <div
            aria-hidden
            className="pointer-events-none absolute inset-y-0 right-0 w-12 bg-gradient-to-l from-slate-950 to-transparent"
          />
        )}
      </div>
    </aside>
  );
}
