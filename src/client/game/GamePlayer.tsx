import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { hashFrame, type ActionId, type ActionInput, type GameDefinition, type GameState } from '../../core/game';
import type { LogEvent } from '../../core/log/events';
import type { EventSink } from '../player/controller';
import { isTyping } from '../player/actions';
import { Button } from '../ui/Button';
import { GameController, actionForGameKey, type GameHud, type PlayController } from './controller';
import { frameCellAt, frameScale, renderFrame } from './render';

export interface GamePlayerProps {
  readonly game: GameDefinition<unknown, unknown>;
  readonly sink: EventSink;
  readonly seed?: number;
  /** A study may hide the action counter. */
  readonly showCounter?: boolean;
  /** Whether RESET of a level is offered (a study setting). */
  readonly allowReset?: boolean;
  readonly toolbar?: React.ReactNode;
  /** This game's events logged before (a reload): play continues where it was. */
  readonly resume?: readonly LogEvent[];
  /** Called whenever the run's state or its completed levels change (e.g. to offer "next" after a WIN). */
  readonly onState?: (state: GameState, levelsCompleted: number) => void;
  /** A designer's playtest: open at this level (0-based), already playing. */
  readonly level?: number;
  /** Extra panel under the controls, given the controller (e.g. a state inspector). */
  readonly side?: (controller: GameController) => React.ReactNode;
}

const PAD: { id: ActionId; label: string; glyph: string; key: string; area: string }[] = [
  { id: 1, label: 'Up (ACTION1)', glyph: '▲', key: 'W / ↑', area: '1 / 2' },
  { id: 3, label: 'Left (ACTION3)', glyph: '◀', key: 'A / ←', area: '2 / 1' },
  { id: 5, label: 'Action (ACTION5)', glyph: '●', key: 'Space / F', area: '2 / 2' },
  { id: 4, label: 'Right (ACTION4)', glyph: '▶', key: 'D / →', area: '2 / 3' },
  { id: 2, label: 'Down (ACTION2)', glyph: '▼', key: 'S / ↓', area: '3 / 2' },
];

/** An ARC-AGI-3-style game on a canvas, with the official controls and an on-screen pad. */
export function GamePlayer({ game, sink, seed = 0, resume, level, side, ...view }: GamePlayerProps) {
  // Constructing a controller has no effects; `start` logs `game.open` (and the opening RESET)
  // once per controller, so React's StrictMode re-run of effects never logs it twice.
  const controller = useMemo(
    () => new GameController(game, sink, seed, resume, level),
    [game, sink, seed, resume, level],
  );
  return <GameView controller={controller} title={game.title} id={game.id} side={side?.(controller)} {...view} />;
}

export interface GameViewProps {
  readonly controller: PlayController;
  readonly title: string;
  readonly id: string;
  /** A study may hide the action counter. */
  readonly showCounter?: boolean;
  /** Whether RESET of a level is offered (a study setting). */
  readonly allowReset?: boolean;
  readonly toolbar?: React.ReactNode;
  /** Called whenever the run's state or its completed levels change (e.g. to offer "next" after a WIN). */
  readonly onState?: (state: GameState, levelsCompleted: number) => void;
  /** Extra panel under the controls (e.g. a state inspector). */
  readonly side?: React.ReactNode;
  /** Shown over the frame instead of the game (e.g. the game could not start). */
  readonly blocked?: React.ReactNode;
  /** The frame cell under the pointer (a designer's inspector), null when it leaves the frame. */
  readonly onHover?: (cell: { x: number; y: number } | null) => void;
}

/** The canvas, the level and action HUD and the controls, for any controller. */
export function GameView({
  controller,
  title,
  id,
  showCounter = true,
  allowReset = true,
  toolbar,
  onState,
  side,
  blocked,
  onHover,
}: GameViewProps) {
  useLayoutEffect(() => {
    controller.start();
    return () => controller.dispose();
  }, [controller]);
  const hud = controller.hud();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const [scale, setScale] = useState(8);

  useLayoutEffect(() => {
    const el = boxRef.current;
    if (!el) return;
    const measure = () => setScale(frameScale(el.clientWidth - 8, el.clientHeight - 8));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const draw = (f: Uint8Array) => {
      const t0 = performance.now();
      renderFrame(canvas, f, scale, window.devicePixelRatio || 1);
      // A User Timing entry: visible in the browser's profiler, and read by the benchmarks.
      performance.measure('arc-studio:frame-render', { start: t0 });
      // What is on screen, readable by tests and tools: the hash of the frame drawn last.
      canvas.dataset.frameHash = hashFrame(f);
    };
    controller.attach(draw);
  }, [controller, scale]);

  const [confirmRestart, setConfirmRestart] = useState(false);
  useGameKeys(controller, confirmRestart);

  useEffect(() => {
    onState?.(hud.state, hud.levelsCompleted);
  }, [hud.state, hud.levelsCompleted, onState]);

  const available = new Set(hud.available);
  const clickable = available.has(6);
  // A game played by clicks alone gets no pad: a pad of disabled buttons only says "not here".
  // Once a game offered a pad action it keeps the pad, so that it does not come and go by level.
  const keyedOnce = useRef(false);
  if (PAD.some((p) => available.has(p.id))) keyedOnce.current = true;
  const keyed = keyedOnce.current;
  const act = (input: ActionInput) => controller.act(input);
  const ended = hud.state === 'WIN' || hud.state === 'GAME_OVER';
  // A RESET that would start the game over while levels are won asks first: a double press of
  // Reset (a level reset, then a full one) must not throw away finished levels by accident.
  const keepPlaying = useRef<HTMLButtonElement>(null);
  const cancelRestart = useCallback(() => setConfirmRestart(false), []);
  const reset = () => {
    if (!(hud.fullResetNext && hud.levelsCompleted > 0)) act({ action: 'RESET' });
    else if (confirmRestart) keepPlaying.current?.focus();
    else setConfirmRestart(true);
  };

  return (
    // A phone stacks the frame, as wide as the screen, above the controls; wider screens put the
    // controls in a column beside it.
    <div className="flex min-h-full flex-col gap-3 p-3 sm:h-full sm:min-h-0 sm:flex-row sm:gap-4">
      <div
        ref={boxRef}
        className="relative flex aspect-square w-full shrink-0 items-center justify-center rounded-lg border border-slate-800 bg-slate-900/60 sm:aspect-auto sm:w-auto sm:min-w-0 sm:flex-1 sm:shrink"
      >
        <canvas
          ref={canvasRef}
          data-testid="game-canvas"
          data-state={hud.state}
          data-level={hud.levelsCompleted}
          role="img"
          aria-label={`${title}: level ${Math.min(hud.level + 1, hud.winLevels)} of ${hud.winLevels}`}
          className="grid-canvas block shadow-xl"
          style={{ cursor: clickable ? 'pointer' : 'default' }}
          onPointerDown={(e) => {
            if (e.button !== 0) return;
            const cell = frameCellAt(e.currentTarget, e.clientX, e.clientY);
            if (cell && clickable) act({ action: 'ACTION6', x: cell.x, y: cell.y });
          }}
          onPointerMove={onHover ? (e) => onHover(frameCellAt(e.currentTarget, e.clientX, e.clientY)) : undefined}
          onPointerLeave={onHover ? () => onHover(null) : undefined}
        />
        {blocked && (
          <div className="absolute inset-0 flex items-center justify-center bg-slate-950/80 p-6">{blocked}</div>
        )}
        {confirmRestart && (
          <RestartDialog
            keep={keepPlaying}
            levels={hud.levelsCompleted}
            onRestart={() => {
              setConfirmRestart(false);
              act({ action: 'RESET' });
            }}
            onCancel={cancelRestart}
          />
        )}
        {ended && (
          <div className="pointer-events-none absolute inset-x-0 top-6 flex justify-center">
            <div
              role="status"
              className={`rounded-lg px-5 py-2 text-lg font-semibold shadow-lg ${hud.state === 'WIN' ? 'bg-emerald-700 text-white' : 'bg-rose-700 text-white'}`}
              data-testid="game-result"
            >
              {hud.state === 'WIN' ? 'Every level complete' : 'Game over: press Reset to try again'}
            </div>
          </div>
        )}
      </div>

      <aside aria-label="Game" className="flex shrink-0 flex-col gap-3 sm:w-64 sm:gap-4 sm:overflow-y-auto">
        <GameSummary title={title} id={id} hud={hud} showCounter={showCounter} />

        <GameControls
          available={available}
          clickable={clickable}
          keyed={keyed}
          act={act}
          allowReset={allowReset}
          onReset={reset}
        />
        {hud.message && (
          <p role="alert" className="text-sm text-amber-300">
            {hud.message}
          </p>
        )}
        {side}
        <div className="flex flex-wrap gap-2 sm:mt-auto">{toolbar}</div>
      </aside>
    </div>
  );
}

/**
 * The game's keys, on the window. Registered in the commit that draws the first frame: a key
 * pressed once the frame is on screen is never lost to a listener not yet attached. Keys do
 * nothing while the restart question is open.
 */
function useGameKeys(controller: PlayController, confirmRestart: boolean): void {
  const confirming = useRef(false);
  confirming.current = confirmRestart;
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e) || confirming.current) return;
      const input = actionForGameKey(e);
      if (!input) return;
      e.preventDefault();
      if (e.repeat) return;
      controller.act(input);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [controller]);
}

/** The game's title and id, its level and the levels won, and the action counter when shown. */
function GameSummary({
  title,
  id,
  hud,
  showCounter,
}: {
  title: string;
  id: string;
  hud: GameHud;
  showCounter: boolean;
}) {
  return (
    <div className="grid grid-cols-2 items-start gap-3 sm:grid-cols-1 sm:gap-4">
      <div className="min-w-0">
        <h1 className="text-lg font-semibold text-white">{title}</h1>
        <p className="break-all font-mono text-xs text-slate-500">{id}</p>
      </div>
      <div className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
        <div className="flex items-baseline justify-between">
          <span className="text-xs uppercase tracking-wider text-slate-400">Level</span>
          <span className="text-2xl font-semibold tabular-nums text-white" data-testid="game-level">
            {Math.min(hud.level + 1, hud.winLevels)} / {hud.winLevels}
          </span>
        </div>
        <div className="mt-2 flex gap-1" aria-hidden>
          {Array.from({ length: hud.winLevels }, (_, i) => (
            <span
              key={i}
              className={`h-1.5 flex-1 rounded-full ${i < hud.levelsCompleted ? 'bg-emerald-400' : i === hud.level ? 'bg-sky-400' : 'bg-slate-700'}`}
            />
          ))}
        </div>
        {showCounter && (
          <div className="mt-3 flex items-baseline justify-between">
            <span className="text-xs uppercase tracking-wider text-slate-400">Actions</span>
            <span className="tabular-nums text-slate-200" data-testid="game-actions">
              {hud.actions}
            </span>
          </div>
        )}
      </div>
    </div>
  );
}

/** The on-screen pad (for games with pad actions), Undo and Reset, and which keys play. */
function GameControls({
  available,
  clickable,
  keyed,
  act,
  allowReset,
  onReset,
}: {
  available: ReadonlySet<number>;
  clickable: boolean;
  keyed: boolean;
  act: (input: ActionInput) => void;
  allowReset: boolean;
  onReset: () => void;
}) {
  return (
    <div className="flex items-center gap-3 rounded-lg border border-slate-800 bg-slate-900/60 p-3 sm:block">
      {keyed && (
        <div
          className="grid w-40 shrink-0 grid-cols-3 grid-rows-3 gap-1.5 sm:mx-auto"
          role="group"
          aria-label="Game controls"
        >
          {PAD.map((p) => (
            // touch-manipulation: quick taps are each a press, never a double-tap zoom.
            // The pad acts on the press, as the frame does: a touch screen's click comes a
            // display frame or more after the finger lands. A click from the keyboard (Enter,
            // Space on the focused button: detail 0) still acts.
            <button
              key={p.id}
              type="button"
              aria-label={p.label}
              title={`${p.label}: ${p.key}`}
              disabled={!available.has(p.id)}
              onPointerDown={(e) => {
                if (e.button === 0 && available.has(p.id)) act({ action: `ACTION${p.id}` as ActionInput['action'] });
              }}
              onClick={(e) => {
                if (e.detail === 0) act({ action: `ACTION${p.id}` as ActionInput['action'] });
              }}
              style={{ gridArea: p.area }}
              className="h-12 touch-manipulation rounded-md border border-slate-600 bg-slate-800 text-lg text-white hover:bg-slate-700 active:bg-slate-600 disabled:border-slate-800 disabled:bg-slate-900 disabled:text-slate-700"
            >
              {p.glyph}
            </button>
          ))}
        </div>
      )}
      <div className="flex min-w-0 flex-1 flex-col gap-3 sm:mt-3">
        <div className="flex flex-wrap justify-between gap-2">
          <Button
            onClick={() => act({ action: 'ACTION7' })}
            disabled={!available.has(7)}
            title="Undo (ACTION7): Ctrl+Z"
            className="flex-1 touch-manipulation justify-center"
          >
            Undo
          </Button>
          {allowReset && (
            <Button
              onClick={onReset}
              title="Reset the level; twice in a row restarts the game"
              className="flex-1 touch-manipulation justify-center"
            >
              Reset
            </Button>
          )}
        </div>
        <p className="text-xs text-slate-500">
          {clickable ? 'Click or tap the frame to act on a cell. ' : ''}
          {/* A phone has no keys to press. */}
          {[1, 2, 3, 4, 5].some((a) => available.has(a as ActionId)) ? (
            <span className="hidden sm:inline">Keys: W A S D or arrows, Space or F.</span>
          ) : (
            ''
          )}
        </p>
      </div>
    </div>
  );
}

/** Asks before a RESET starts the game over and the levels won would be played again. */
function RestartDialog({
  keep,
  levels,
  onRestart,
  onCancel,
}: {
  keep: React.RefObject<HTMLButtonElement | null>;
  levels: number;
  onRestart: () => void;
  onCancel: () => void;
}) {
  useEffect(() => {
    keep.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onCancel();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [keep, onCancel]);
  return (
    <div className="absolute inset-0 flex items-center justify-center bg-slate-950/80 p-6">
      <div
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="restart-title"
        aria-describedby="restart-text"
        data-testid="restart-dialog"
        className="max-w-sm rounded-lg border border-slate-700 bg-slate-900 p-5 shadow-xl"
      >
        <h2 id="restart-title" className="text-lg font-semibold text-white">
          Start the game over?
        </h2>
        <p id="restart-text" className="mt-2 text-sm text-slate-300">
          This level is already at its start, so Reset now takes you back to level 1. You have completed{' '}
          {levels === 1 ? '1 level' : `${levels} levels`}: {levels === 1 ? 'it stays' : 'they stay'} recorded, but you
          would play {levels === 1 ? 'it' : 'them'} again.
        </p>
        <div className="mt-4 flex justify-end gap-2">
          <button
            ref={keep}
            type="button"
            onClick={onCancel}
            className="rounded-md border border-emerald-500 bg-emerald-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-emerald-800"
          >
            Keep playing
          </button>
          <button
            type="button"
            onClick={onRestart}
            className="rounded-md border border-rose-500 bg-rose-800 px-3 py-1.5 text-sm text-white hover:bg-rose-700"
          >
            Start over
          </button>
        </div>
      </div>
    </div>
  );
}
