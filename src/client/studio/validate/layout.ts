/**
 * The state graph's layout, by the graph library (Cytoscape.js) without a screen: a breadth-first
 * layout rooted at the start state, so that each row is one more action away from the start.
 * Runs in the worker, so laying out a few thousand states never freezes the page.
 */
import cytoscape from 'cytoscape';
import type { GraphDrawing } from './protocol';

/** Least gap between neighbouring nodes of a row, and between rows, in graph units. */
export const NODE_GAP = 16;
const ROW_GAP = 30;
/** Height over width of the box the layout fills: about the panel's drawing area. */
const ASPECT = 0.65;

/** Positions (x0, y0, x1, y1, ...) of the drawing's nodes. */
export function layoutGraph(shape: Omit<GraphDrawing, 'positions'>): number[] {
  const n = shape.kinds.length;
  const elements: cytoscape.ElementDefinition[] = [];
  for (let i = 0; i < n; i++) elements.push({ group: 'nodes', data: { id: `n${i}` } });
  for (let e = 0; e < shape.edges.length; e += 2)
    elements.push({
      group: 'edges',
      data: { id: `e${e / 2}`, source: `n${shape.edges[e]}`, target: `n${shape.edges[e + 1]}` },
    });
  // The box the layout spreads the rows over: wide enough for the widest row, tall enough for
  // every row, and near the drawing area's shape so that fitting it wastes little room.
  const perDepth = new Map<number, number>();
  for (const d of shape.depth) perDepth.set(d, (perDepth.get(d) ?? 0) + 1);
  const widest = Math.max(...perDepth.values());
  const rows = Math.max(...shape.depth) + 1;
  const w = Math.max(400, widest * NODE_GAP);
  const cy = cytoscape({ headless: true, styleEnabled: false, elements });
  cy.layout({
    name: 'breadthfirst',
    roots: ['n0'],
    directed: true,
    animate: false,
    avoidOverlap: false,
    grid: false,
    boundingBox: { x1: 0, y1: 0, w, h: Math.max(rows * ROW_GAP, w * ASPECT) },
  }).run();
  const positions: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = cy.getElementById(`n${i}`).position();
    positions.push(Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10);
  }
  cy.destroy();
  return positions;
}
