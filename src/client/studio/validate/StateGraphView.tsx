import { useEffect, useRef, useState } from 'react';
import type { Core, ElementDefinition } from 'cytoscape';
import type { GraphDrawing, NodeKind } from './protocol';

/** Colours of the node kinds, shared by the drawing and its legend. */
const COLOURS: Record<NodeKind, string> = {
  start: '#38bdf8',
  win: '#34d399',
  winning: '#a7f3d0',
  gameover: '#f43f5e',
  frontier: '#475569',
  normal: '#94a3b8',
};

const LEGEND: { kind: NodeKind; label: string }[] = [
  { kind: 'start', label: 'start' },
  { kind: 'winning', label: 'one move from a win' },
  { kind: 'win', label: 'WIN' },
  { kind: 'gameover', label: 'GAME_OVER' },
  { kind: 'frontier', label: 'not expanded (budget)' },
];

/**
 * Cytoscape.js adds a `<style>` element to the page the first time it draws; the studio's
 * Content-Security-Policy (`style-src 'self'`) refuses it and reports a violation. The rule it
 * holds (`position: relative` on the container) is given by the container's class instead, and an
 * element with the id the library looks for tells it the sheet is already there.
 * WARNING: the id is the library's internal name (cytoscape 3.x, src/extensions/renderer/base).
 */
function markLibraryStylesheet(): void {
  const id = '__________cytoscape_stylesheet';
  if (document.getElementById(id)) return;
  const marker = document.createElement('meta');
  marker.id = id;
  document.head.appendChild(marker);
}

/**
 * A level's state graph drawn by Cytoscape.js (loaded on first use) at the positions the worker's
 * layout gave. The container mirrors what was drawn in `data-state-nodes` and `data-edges`.
 */
export function StateGraphView({ drawing }: { drawing: GraphDrawing }) {
  const box = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cy: Core | null = null;
    let cancelled = false;
    const el = box.current!;
    delete el.dataset.ready;
    import('cytoscape')
      .then(({ default: cytoscape }) => {
        if (cancelled) return;
        markLibraryStylesheet();
        const n = drawing.kinds.length;
        const many = drawing.states > 500;
        const elements: ElementDefinition[] = [];
        for (let i = 0; i < n; i++) {
          elements.push({
            group: 'nodes',
            data: {
              id: `n${i}`,
              kind: drawing.kinds[i],
              label: drawing.kinds[i] === 'start' ? 'start' : drawing.kinds[i] === 'win' ? 'WIN' : '',
            },
            position: { x: drawing.positions[2 * i], y: drawing.positions[2 * i + 1] },
          });
        }
        for (let e = 0; e < drawing.edges.length; e += 2) {
          const to = drawing.edges[e + 1];
          elements.push({
            group: 'edges',
            data: {
              id: `e${e / 2}`,
              source: `n${drawing.edges[e]}`,
              target: `n${to}`,
              win: to === drawing.states ? 1 : 0,
            },
          });
        }
        cy = cytoscape({
          container: el,
          elements,
          layout: { name: 'preset' },
          minZoom: 0.02,
          maxZoom: 8,
          autoungrabify: true,
          boxSelectionEnabled: false,
          textureOnViewport: many,
          hideEdgesOnViewport: many,
          pixelRatio: 1,
          style: [
            {
              selector: 'node',
              style: {
                width: 6,
                height: 6,
                'background-color': COLOURS.normal,
                'border-width': 0,
                label: 'data(label)',
                color: '#e2e8f0',
                'font-size': 12,
                'text-valign': 'top',
                'text-margin-y': -4,
                'min-zoomed-font-size': 4,
              },
            },
            {
              selector: 'node[kind = "start"]',
              style: { width: 16, height: 16, 'background-color': COLOURS.start, 'z-index': 10 },
            },
            {
              selector: 'node[kind = "win"]',
              style: { width: 18, height: 18, shape: 'star', 'background-color': COLOURS.win, 'z-index': 10 },
            },
            { selector: 'node[kind = "winning"]', style: { 'background-color': COLOURS.winning } },
            {
              selector: 'node[kind = "gameover"]',
              style: { width: 8, height: 8, shape: 'diamond', 'background-color': COLOURS.gameover },
            },
            { selector: 'node[kind = "frontier"]', style: { 'background-color': COLOURS.frontier } },
            {
              selector: 'edge',
              style: { width: 0.6, 'curve-style': 'haystack', 'line-color': '#64748b', opacity: many ? 0.25 : 0.45 },
            },
            { selector: 'edge[win = 1]', style: { 'line-color': COLOURS.win, opacity: 0.8, width: 1 } },
          ],
        });
        cy.fit(undefined, 24);
        // Sizes in graph units, chosen at the fitted zoom: the start, WIN and their labels stay
        // readable however many states there are, and zooming in enlarges everything alike.
        const z = cy.zoom();
        cy.style()
          .selector('node')
          .style({
            'font-size': 12 / z,
            'text-margin-y': -3 / z,
            width: Math.max(8, 4 / z),
            height: Math.max(8, 4 / z),
          })
          .selector('node[kind = "start"], node[kind = "win"]')
          .style({ width: 16 / z, height: 16 / z })
          .selector('node[kind = "gameover"]')
          .style({ width: Math.max(10, 5 / z), height: Math.max(10, 5 / z) })
          .selector('edge')
          .style({ width: 0.8 / z })
          .selector('edge[win = 1]')
          .style({ width: 1.2 / z })
          .update();
        cy.one('render', () => {
          if (!cy) return;
          el.dataset.stateNodes = String(cy.nodes('[kind != "win"]').length);
          el.dataset.edges = String(cy.edges().length);
          el.dataset.ready = 'true';
        });
      })
      .catch((e: Error) => {
        if (!cancelled) setError(`The graph library did not load (${e.message}): reload the page and run again.`);
      });
    return () => {
      cancelled = true;
      cy?.destroy();
    };
  }, [drawing]);

  return (
    <div>
      <div
        ref={box}
        data-testid="state-graph"
        role="img"
        aria-label={`State graph: ${drawing.states} states and ${drawing.edges.length / 2} moves; drag to pan, scroll to zoom`}
        className="relative h-80 w-full overflow-hidden rounded border border-slate-800 bg-slate-950"
      />
      {error && (
        <p role="alert" className="mt-1 text-xs text-rose-300">
          {error}
        </p>
      )}
      <ul className="mt-1.5 flex flex-wrap gap-x-3 gap-y-1 text-[11px] text-slate-400" aria-label="Legend">
        {LEGEND.map((l) => (
          <li key={l.kind} className="flex items-center gap-1">
            <span className={`inline-block h-2 w-2 rounded-full ${DOT[l.kind]}`} />
            {l.label}
          </li>
        ))}
      </ul>
      <p className="mt-1 text-[11px] text-slate-500">
        Rows are actions from the start (breadth-first); RESET edges after GAME_OVER and undo are left out. Drag to pan,
        scroll to zoom.
      </p>
    </div>
  );
}

/** The legend's dots, as classes (the CSP allows no inline style sheets; these match `COLOURS`). */
const DOT: Record<NodeKind, string> = {
  start: 'bg-sky-400',
  win: 'bg-emerald-400',
  winning: 'bg-emerald-200',
  gameover: 'bg-rose-500',
  frontier: 'bg-slate-600',
  normal: 'bg-slate-400',
};
