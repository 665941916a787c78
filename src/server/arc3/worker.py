"""ARC Studio's worker for arcengine games: the official engine, driven over stdio.

One file over 600 lines on purpose: it is run as `python3 worker.py` from any install, with
nothing to import beside the official engine.

The server starts one long-lived process per worker:

    python3 worker.py --games DIR [--games DIR ...]

Each DIR is a folder in the official toolkit's layout:
``DIR/<game>/<version>/<game>.py`` beside ``metadata.json``. Games are loaded the way the
toolkit's ``LocalEnvironmentWrapper`` loads them (the source is exec'd into a fresh module named
``arc_agi_3.<game_id>``, the class named by ``class_name`` -- by default the first four letters of
the game id, capitalised -- must subclass ``arcengine.ARCBaseGame``, and is built with
``seed=`` when its constructor takes one); an opened game gets the same initial RESET the
toolkit's ``make`` performs. The engine itself is never reimplemented here.

Protocol: one JSON object per line each way, answered in order. The requests, the answers and
the error codes are documented in one place, ``protocol.ts`` beside this file, whose schemas the
server checks every answer against; ``protocol.test.ts`` speaks it to this script.

What a game prints goes to stderr, so it cannot break the protocol on stdout.
"""

from __future__ import annotations

import argparse
import base64
import copy
import gc
import hashlib
import importlib.util
import inspect
import json
import os
import platform
import sys
import traceback
from pathlib import Path
from typing import Any


class WorkerError(Exception):
    def __init__(self, code: str, message: str, tb: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.tb = tb


def engine() -> Any:
    try:
        import arcengine
    except Exception as e:  # noqa: BLE001 - any import failure is reported the same way
        raise WorkerError(
            "no_engine",
            f"arcengine cannot be imported by {sys.executable} ({e}); "
            "install it with `pip install arc-agi`, or set ARC_STUDIO_PYTHONPATH to a folder holding arcengine.",
        ) from e
    return arcengine


def arcengine_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("arcengine")
    except Exception:  # noqa: BLE001
        mod = engine()
        return getattr(mod, "__version__", None)


def memoize_factory_checks() -> bool:
    """Makes pydantic decide once per default factory, not at every model built, whether the factory
    takes the validated data.

    pydantic 2.13 asks ``inspect.signature`` again each time a model with a
    ``PrivateAttr(default_factory=...)`` is built (pydantic issue #13376), and arcengine builds one
    such model, ``FrameDataRaw``, for every action: with ``list`` as the factory that costs about
    0.3 ms of every step, a third of an ls20 step. The answer is a pure function of the factory
    object, so it is kept per factory (a factory that cannot be a key is asked every time, as
    before). Nothing the engine computes changes. Answers whether the check was found to memoize
    (pydantic versions without it need nothing)."""
    try:
        from pydantic._internal import _fields
    except Exception:  # noqa: BLE001 - another pydantic, or none: nothing to do
        return False
    original = getattr(_fields, "takes_validated_data_argument", None)
    if original is None or getattr(original, "memoized", False):
        return original is not None
    known: dict[Any, bool] = {}

    def takes_validated_data_argument(default_factory: Any) -> bool:
        try:
            return known[default_factory]
        except KeyError:
            pass
        except TypeError:
            return original(default_factory)
        if len(known) >= 4096:
            known.clear()
        answer = known[default_factory] = original(default_factory)
        return answer

    takes_validated_data_argument.memoized = True  # type: ignore[attr-defined]
    _fields.takes_validated_data_argument = takes_validated_data_argument
    return True


def default_class_name(game_id: str) -> str:
    """The toolkit's default: the first four characters of the game id, first letter upper-cased."""
    head = game_id[:4]
    return head[:1].upper() + head[1:]


class Game:
    """One game version found in a mounted folder."""

    def __init__(self, folder: Path, meta: dict[str, Any]) -> None:
        self.dir = folder
        self.meta = meta
        self.game_id: str = meta["game_id"]
        self.game, _, self.version = self.game_id.partition("-")
        self.class_name: str = meta.get("class_name") or default_class_name(self.game_id)
        self.cls: Any = None
        self.level_count: int | None = None
        # The actions the engine says the game offers (``available_actions`` of its constructor).
        self.available_actions: list[int] | None = None

    def source_file(self) -> Path:
        candidates = [self.dir / f"{self.class_name.lower()}.py", self.dir / f"{self.class_name}.py"]
        found = next((p for p in candidates if p.exists()), None)
        if found is None:
            raise WorkerError("load_error", f"game source file not found; looked in {', '.join(map(str, candidates))}")
        return found

    def load(self) -> Any:
        """Executes the game's source into a fresh module, as the toolkit does, and keeps the class."""
        if self.cls is not None:
            return self.cls
        base = engine().ARCBaseGame
        path = self.source_file()
        try:
            source = path.read_text(encoding="utf-8")
        except OSError as e:
            raise WorkerError("load_error", f"cannot read {path}: {e}") from e
        spec = importlib.util.spec_from_loader(f"arc_agi_3.{self.game_id}", loader=None)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        try:
            exec(compile(source, str(path), "exec"), module.__dict__)
        except BaseException as e:  # noqa: BLE001 - a game's module may raise anything, SystemExit included
            raise WorkerError("load_error", f"{path}: {type(e).__name__}: {e}", traceback.format_exc()) from e
        cls = getattr(module, self.class_name, None)
        if not isinstance(cls, type):
            raise WorkerError("load_error", f"class `{self.class_name}` not found in {path} (metadata.json may name another in class_name)")
        if not issubclass(cls, base):
            raise WorkerError("load_error", f"class `{self.class_name}` in {path} is not a subclass of arcengine.ARCBaseGame")
        self.cls = cls
        return cls

    def instantiate(self, seed: int) -> Any:
        cls = self.load()
        kwargs = {"seed": seed} if "seed" in inspect.signature(cls).parameters else {}
        try:
            game = cls(**kwargs)
        except BaseException as e:  # noqa: BLE001
            raise WorkerError("game_error", f"{self.game_id} failed to start: {type(e).__name__}: {e}", traceback.format_exc()) from e
        self.level_count = len(getattr(game, "_levels", [])) or self.level_count
        offered = getattr(game, "_available_actions", None)
        if isinstance(offered, (list, tuple)):
            self.available_actions = [int(a) for a in offered]
        return game

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "game": self.game,
            "version": self.version,
            "title": self.meta.get("title") or self.game_id,
            "tags": self.meta.get("tags") or [],
            "default_fps": self.meta.get("default_fps") or 5,
            "baseline_actions": self.meta.get("baseline_actions") or [],
            "class_name": self.class_name,
            "dir": str(self.dir),
            "level_count": self.level_count,
            "available_actions": self.available_actions,
        }
        if self.level_count is None:
            try:
                self.instantiate(0)
                out["level_count"] = self.level_count
                out["available_actions"] = self.available_actions
            except WorkerError as e:
                out["error"] = {"code": e.code, "message": e.message}
        return out


def plain(value: Any, depth: int = 0) -> Any:
    """A JSON-able view of a game attribute (long or deep values summarised)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value if not isinstance(value, str) or len(value) <= 200 else value[:200] + "…"
    if depth >= 3:
        return f"<{type(value).__name__}>"
    if isinstance(value, (list, tuple)):
        if len(value) > 40:
            return f"<{type(value).__name__} of {len(value)}>"
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in list(value.items())[:40]}
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"<array {'x'.join(str(d) for d in shape)}>"
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return f"<{type(value).__name__} {name}>"
    return f"<{type(value).__name__}>"


class Run:
    def __init__(self, game: Game, instance: Any, guid: str) -> None:
        self.game = game
        self.instance = instance
        self.guid = guid
        # Set by ``explore_start``: the states of a state-graph exploration of this run.
        self.exploration: Exploration | None = None


class Exploration:
    """The states found while exploring one level of a run (``games graph``): each distinct state
    gets an id in order of discovery; the states not yet expanded keep a copy of the game."""

    def __init__(self, level: int) -> None:
        self.level = level
        self.ids: dict[str, int] = {}
        self.snapshots: dict[int, Any] = {}


def snapshot(inst: Any) -> Any:
    """A copy of a game that can be played on without changing ``inst``: the current level, the
    camera and the game's own fields are copied; the other levels and the pristine copies of the
    levels are shared, which makes a copy 30-80 times cheaper than copying everything.
    WARNING: a shared level may be changed when a copy wins the level and moves on to the next; an
    exploration never plays on after a win, so it never meets such a change."""
    memo: dict[int, Any] = {id(inst._clean_levels): inst._clean_levels}
    for i, level in enumerate(inst._levels):
        if i != inst._current_level_index:
            memo[id(level)] = level
    return copy.deepcopy(inst, memo)


def state_digest(value: Any, h: Any, depth: int = 0) -> None:
    """Feeds a stable text of a game field into ``h``: numbers, strings, lists, dicts, arrays (their
    bytes) and objects (their public fields) -- never a ``repr`` that could hold a memory address."""
    if value is None or isinstance(value, (bool, int, float, str)):
        h.update(json.dumps(value).encode())
        return
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "tobytes"):
        h.update(f"<{shape}>".encode())
        h.update(value.tobytes())
        return
    if depth >= 4:
        h.update(f"<{type(value).__name__}>".encode())
        return
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        h.update(b"[")
        for v in items:
            state_digest(v, h, depth + 1)
            h.update(b",")
        h.update(b"]")
        return
    if isinstance(value, dict):
        h.update(b"{")
        for k, v in value.items():
            state_digest(k, h, depth + 1)
            h.update(b":")
            state_digest(v, h, depth + 1)
        h.update(b"}")
        return
    name = getattr(value, "name", None)
    if isinstance(name, str):
        # A sprite or an enum member: its name, and for a sprite its place.
        h.update(f"<{type(value).__name__} {name} {getattr(value, 'x', '')} {getattr(value, 'y', '')}>".encode())
        return
    fields = getattr(value, "__dict__", None)
    h.update(f"<{type(value).__name__}>".encode())
    if isinstance(fields, dict):
        state_digest({k: v for k, v in fields.items() if not k.startswith("_")}, h, depth + 1)


def state_key(inst: Any, frame: Any) -> str:
    """The key of a game's state in a state graph: the frame shown, the level, state and score, every
    sprite of the current level (name, place, layer, rotation, visibility, pixels) and the game's
    public fields, as a SHA-256 digest."""
    import numpy as np

    h = hashlib.sha256()
    h.update(np.asarray(frame, dtype=np.int64).tobytes())
    h.update(f"|{inst._current_level_index}|{getattr(inst._state, 'name', inst._state)}|{inst._score}|".encode())
    for sp in inst.current_level.get_sprites():
        h.update(f"{sp.name}|{sp.x}|{sp.y}|{sp.layer}|{getattr(sp, 'rotation', 0)}|{bool(sp.is_visible)}|".encode())
        state_digest(getattr(sp, "pixels", None), h)
    state_digest({k: v for k, v in sorted(vars(inst).items()) if not k.startswith("_")}, h)
    return h.hexdigest()


def click_targets(inst: Any) -> list[list[int]]:
    """Where a graph's random policy clicks in an arcengine game: the centre of each visible sprite
    of the current level, mapped by the camera onto the 64x64 frame (each cell once)."""
    cam = inst.camera
    scale, x_off, y_off = cam._calculate_scale_and_offset()
    seen: set[tuple[int, int]] = set()
    out: list[list[int]] = []
    for sp in inst.current_level.get_sprites():
        if not sp.is_visible:
            continue
        x = int(x_off + (sp.x - cam.x) * scale + (sp.width * scale) // 2)
        y = int(y_off + (sp.y - cam.y) * scale + (sp.height * scale) // 2)
        if 0 <= x < 64 and 0 <= y < 64 and (x, y) not in seen:
            seen.add((x, y))
            out.append([x, y])
    return out


class Heap:
    """Keeps the open runs' objects out of Python's full garbage collections.

    A full collection walks every object the interpreter tracks, and holds the worker and every step
    queued on it for as long: an ls20 run is about 3,000 objects, so with a hundred runs open one
    takes a tenth of a second or more, and Python starts one each time the old objects have grown by
    a quarter, as they do again and again while a batch of participants opens runs. So once a run
    has opened, the objects then alive are set aside (``gc.freeze``): young collections still
    reclaim the garbage the steps make, and Python's full collections walk only what is newer.

    A closed run's objects are reclaimed at once by reference counting, but for those in reference
    cycles (about 3,000 for an ls20 run, 700 for ft09, none for vc33), which wait, set aside, until
    as many runs have been closed as half the runs open (at least 16); one full collection then
    reclaims them all, with any garbage a game made of set-aside objects while its runs played on
    (only a run opened since can have set them aside, and runs keep opening only as others close).
    While a game's states are explored nothing is set aside: an exploration drops copies of the
    game as it goes."""

    def __init__(self) -> None:
        self.dropped = 0
        self.full_collections = 0

    def run_opened(self, runs: dict[str, Run]) -> None:
        if any(run.exploration is not None for run in runs.values()):
            return
        # The young objects' garbage first (the opening's own), so that none of it is set aside.
        gc.collect(1)
        gc.freeze()

    def run_dropped(self, runs: dict[str, Run]) -> None:
        self.dropped += 1
        if self.dropped >= max(16, len(runs) // 2):
            self.collect(runs)

    def collect(self, runs: dict[str, Run]) -> None:
        """Reclaims what was set aside and became garbage, then sets aside what is alive."""
        gc.unfreeze()
        gc.collect()
        self.full_collections += 1
        self.dropped = 0
        if not any(run.exploration is not None for run in runs.values()):
            gc.freeze()


class Worker:
    def __init__(self, dirs: list[str]) -> None:
        self.dirs = [Path(d) for d in dirs]
        self.games: dict[str, Game] = {}
        self.runs: dict[str, Run] = {}
        # Pinned versions of games, by the folder holding their files (see ``open``'s code_dir).
        self.pinned: dict[str, Game] = {}
        self.heap = Heap()
        self.scan()

    def scan(self) -> None:
        """Finds every metadata.json under the mounted folders, as the toolkit's OFFLINE scan does."""
        found: dict[str, Game] = {}
        for root in self.dirs:
            for meta_file in sorted(root.rglob("metadata.json")):
                try:
                    meta = json.loads(meta_file.read_text(encoding="utf-8"))
                except (OSError, ValueError) as e:
                    print(f"arc3 worker: skipping {meta_file}: {e}", file=sys.stderr)
                    continue
                if not isinstance(meta, dict) or not isinstance(meta.get("game_id"), str):
                    print(f"arc3 worker: skipping {meta_file}: no game_id", file=sys.stderr)
                    continue
                old = self.games.get(meta["game_id"])
                game = Game(meta_file.parent, meta)
                if old is not None and old.dir == game.dir:
                    game.cls, game.level_count, game.available_actions = old.cls, old.level_count, old.available_actions
                if game.game_id in found:
                    print(f"arc3 worker: {game.game_id} in {game.dir} is ignored; it is already in {found[game.game_id].dir}", file=sys.stderr)
                    continue
                found[game.game_id] = game
        self.games = found

    def game(self, game_id: Any) -> Game:
        if not isinstance(game_id, str):
            raise WorkerError("bad_request", "game_id must be a string such as ls20-9607627b")
        game = self.games.get(game_id)
        if game is None:
            self.scan()
            game = self.games.get(game_id)
        if game is None:
            known = ", ".join(sorted(self.games)) or "none"
            raise WorkerError("unknown_game", f"no game {game_id} in {', '.join(map(str, self.dirs)) or 'no folder'}; games: {known}")
        return game

    def game_of(self, req: dict[str, Any]) -> Game:
        """The game a run opens: a pinned version's folder when ``code_dir`` names one, else the mounted game."""
        code_dir = req.get("code_dir")
        if code_dir is None:
            return self.game(req.get("game_id"))
        if not isinstance(code_dir, str) or not code_dir:
            raise WorkerError("bad_request", "code_dir must be a folder path")
        game = self.pinned.get(code_dir)
        if game is None:
            meta_file = Path(code_dir) / "metadata.json"
            try:
                meta = json.loads(meta_file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise WorkerError("unknown_game", f"the game's code in {code_dir} cannot be read ({e}); the run's version is not available") from e
            if not isinstance(meta, dict) or meta.get("game_id") != req.get("game_id"):
                raise WorkerError("unknown_game", f"{meta_file} is not a version of {req.get('game_id')}")
            game = Game(Path(code_dir), meta)
            self.pinned[code_dir] = game
        return game

    def run(self, req: dict[str, Any]) -> Run:
        run = self.runs.get(str(req.get("run")))
        if run is None:
            raise WorkerError("unknown_run", f"no open run {req.get('run')!r}; open it first")
        return run

    # --- commands -------------------------------------------------------------------------------

    def cmd_hello(self, req: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "python": platform.python_version(),
            "executable": sys.executable,
            "pid": os.getpid(),
            "dirs": [str(d) for d in self.dirs],
            "arcengine": None,
        }
        try:
            out["arcengine"] = arcengine_version()
            out["arcengine_path"] = str(Path(engine().__file__).parent)
        except WorkerError as e:
            out["arcengine_error"] = e.message
        return out

    def cmd_list(self, req: dict[str, Any]) -> dict[str, Any]:
        self.scan()
        return {"games": [g.info() for _, g in sorted(self.games.items())]}

    def open_run(self, req: dict[str, Any]) -> tuple[Run, dict[str, Any]]:
        run_id = req.get("run")
        if not isinstance(run_id, str) or not run_id:
            raise WorkerError("bad_request", "run must be a non-empty string")
        seed = req.get("seed", 0)
        if not isinstance(seed, int):
            raise WorkerError("bad_request", "seed must be an integer")
        game = self.game_of(req)
        if self.runs.pop(run_id, None) is not None:
            self.heap.run_dropped(self.runs)
        run = Run(game, game.instantiate(seed), run_id)
        self.runs[run_id] = run
        first = self.perform(run, {"action": "RESET"})
        self.heap.run_opened(self.runs)
        return run, first

    def cmd_open(self, req: dict[str, Any]) -> dict[str, Any]:
        run, first = self.open_run(req)
        return self.start_level(run, first, req.get("level", 0))

    def start_level(self, run: Run, first: dict[str, Any], level: Any) -> dict[str, Any]:
        """A designer's playtest that starts at a later level: the engine's own set_level, the
        levels before it counted as completed, and the level's first frame as the camera draws it."""
        if not isinstance(level, int) or level < 0:
            raise WorkerError("bad_request", "level must be a non-negative integer")
        if level == 0:
            return first
        inst = run.instance
        try:
            inst.set_level(level)
            inst._score = level
            frame = inst.camera.render(inst.current_level.get_sprites())
        except IndexError as e:
            raise WorkerError("bad_request", str(e)) from e
        except BaseException as e:  # noqa: BLE001 - a game may raise anything
            raise WorkerError("game_error", f"{run.game.game_id} raised on set_level({level}): {type(e).__name__}: {e}", traceback.format_exc()) from e
        return {**first, **encode_frames([frame]), "levels_completed": level, "full_reset": False}

    def cmd_inspect(self, req: dict[str, Any]) -> dict[str, Any]:
        """A designer's view of a run: the game's public attributes, its level and camera, and
        every sprite with its place (in the level's cells; the camera maps them to the frame)."""
        run = self.run(req)
        inst = run.instance
        attributes: dict[str, Any] = {}
        for name, value in sorted(vars(inst).items()):
            if name.startswith("_"):
                continue
            attributes[name] = plain(value)
        cam = inst.camera
        scale, x_off, y_off = cam._calculate_scale_and_offset()
        sprites = []
        for sp in inst.current_level.get_sprites():
            sprites.append({
                "name": sp.name, "x": sp.x, "y": sp.y, "width": sp.width, "height": sp.height, "layer": sp.layer,
                "visible": bool(sp.is_visible), "tags": list(sp.tags),
            })
        return {
            "level_index": inst.level_index, "levels": len(inst._levels), "state": getattr(inst._state, "name", str(inst._state)),
            "levels_completed": int(inst._score), "attributes": attributes,
            "camera": {"x": cam.x, "y": cam.y, "width": cam.width, "height": cam.height, "scale": scale, "x_offset": x_off, "y_offset": y_off},
            "sprites": sprites,
        }

    def cmd_act(self, req: dict[str, Any]) -> dict[str, Any]:
        return self.perform(self.run(req), req)

    def cmd_replay(self, req: dict[str, Any]) -> dict[str, Any]:
        actions = req.get("actions", [])
        if not isinstance(actions, list):
            raise WorkerError("bad_request", "actions must be a list of {action, x?, y?}")
        run, first = self.open_run(req)
        last = self.start_level(run, first, req.get("level", 0))
        for a in actions:
            last = self.perform(run, a)
        return {**last, "count": len(actions)}

    def cmd_close(self, req: dict[str, Any]) -> dict[str, Any]:
        closed = self.runs.pop(str(req.get("run")), None) is not None
        if closed:
            self.heap.run_dropped(self.runs)
        return {"closed": closed}

    def cmd_reload(self, req: dict[str, Any]) -> dict[str, Any]:
        self.scan()
        game = self.game(req.get("game_id"))
        game.cls = None
        game.level_count = None
        game.available_actions = None
        # The game's former classes are dropped: reclaimed with the runs closed.
        self.heap.run_dropped(self.runs)
        game.load()
        return {"game_id": game.game_id, "file": str(game.source_file())}

    # --- exploring (games graph) ------------------------------------------------------------------

    def explored_state(self, ex: Exploration, inst: Any, state: str, levels: int, actions: list[int], frame: Any) -> dict[str, Any]:
        """A state met while exploring: its node id (a new one for a state not met before, whose copy of
        the game is kept for ``explore_expand``; -1 for a won level), state, level count and, when
        new, its actions and click targets."""
        out: dict[str, Any] = {"state": state, "levels_completed": levels}
        if levels > ex.level:
            out["node"] = -1
            return out
        key = state_key(inst, frame)
        found = ex.ids.get(key)
        if found is not None:
            out["node"] = found
            return out
        out["node"] = ex.ids[key] = len(ex.ids)
        out["new"] = True
        if state != "GAME_OVER":
            ex.snapshots[out["node"]] = inst
            out["available_actions"] = actions
            if 6 in actions:
                out["targets"] = click_targets(inst)
        return out

    def cmd_explore_start(self, req: dict[str, Any]) -> dict[str, Any]:
        run, first = self.open_run(req)
        level = req.get("level", 0)
        fd = self.start_level(run, first, level)
        inst = run.instance
        ex = run.exploration = Exploration(level)
        # The run's own instance is never played on: state 0 is a copy of it.
        frame = inst.camera.render(inst.current_level.get_sprites())
        return self.explored_state(ex, snapshot(inst), fd["state"], fd["levels_completed"], fd["available_actions"], frame)

    def cmd_explore_expand(self, req: dict[str, Any]) -> dict[str, Any]:
        run = self.run(req)
        ex = run.exploration
        if ex is None:
            raise WorkerError("bad_request", f"run {run.guid} is not being explored; send explore_start first")
        node = req.get("node")
        base = ex.snapshots.pop(node, None) if isinstance(node, int) and not isinstance(node, bool) else None
        if base is None:
            raise WorkerError("bad_request", f"node {node!r} of run {run.guid} is unknown or was already expanded")
        actions = req.get("actions")
        if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
            raise WorkerError("bad_request", "actions must be a list of {action, x?, y?}")
        results = []
        for i, a in enumerate(actions):
            # The last action may play on the base itself: nothing needs it afterwards.
            inst = base if i == len(actions) - 1 else snapshot(base)
            fd = self.perform_raw(Run(run.game, inst, run.guid), a)
            state_name = getattr(fd.state, "name", str(fd.state))
            frame = fd.frame[-1] if len(fd.frame) else inst.camera.render(inst.current_level.get_sprites())
            results.append(self.explored_state(ex, inst, state_name, int(fd.levels_completed), [int(x) for x in fd.available_actions], frame))
        return {"results": results}

    # --- acting ---------------------------------------------------------------------------------

    def perform(self, run: Run, req: dict[str, Any]) -> dict[str, Any]:
        return frame_data(self.perform_raw(run, req), run.game.game_id, run.guid)

    def perform_raw(self, run: Run, req: dict[str, Any]) -> Any:
        """One action on the engine; answers the engine's own FrameData."""
        eng = engine()
        name = req.get("action")
        try:
            action = eng.GameAction[name] if isinstance(name, str) else None
        except KeyError:
            action = None
        if action is None:
            raise WorkerError("bad_request", f"action must be RESET or ACTION1..ACTION7, not {name!r}")
        data: dict[str, Any] = {}
        if action.is_complex():
            x, y = req.get("x"), req.get("y")
            if not isinstance(x, int) or not isinstance(y, int):
                raise WorkerError("bad_request", f"{name} needs integer x and y (0-63)")
            data = {"x": x, "y": y}
        try:
            fd = run.instance.perform_action(eng.ActionInput(id=action, data=data), raw=True)
        except BaseException as e:  # noqa: BLE001 - a game may raise anything; the worker stays up
            raise WorkerError(
                "game_error", f"{run.game.game_id} raised on {name}: {type(e).__name__}: {e}", traceback.format_exc()
            ) from e
        return fd


def encode_frames(frames: list[Any]) -> dict[str, Any]:
    """Frames for the wire: base64 of the row-major uint8 cells with each frame's [height, width]
    (``frame_b64``, ``frame_dims``) when every cell fits a byte, which is more than ten times cheaper
    to write than nested JSON lists; otherwise nested lists in ``frame``."""
    import numpy as np

    arrays = [np.asarray(f) for f in frames]
    if all(a.ndim == 2 and a.size and 0 <= a.min() and a.max() <= 255 for a in arrays):
        return {
            "frame_b64": [base64.b64encode(a.astype(np.uint8).tobytes()).decode("ascii") for a in arrays],
            "frame_dims": [list(a.shape) for a in arrays],
        }
    return {"frame": [a.tolist() for a in arrays]}


def frame_data(fd: Any, game_id: str, guid: str) -> dict[str, Any]:
    state = fd.state
    return {
        "game_id": game_id,
        "guid": guid,
        **encode_frames(list(fd.frame)),
        "state": getattr(state, "name", str(state)),
        "levels_completed": int(fd.levels_completed),
        "win_levels": int(fd.win_levels),
        "available_actions": [int(a) for a in fd.available_actions],
        "full_reset": bool(getattr(fd, "full_reset", False)),
    }


def serve(worker: Worker, inp: Any, out: Any) -> None:
    for line in inp:
        if not line.strip():
            continue
        req_id: Any = None
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise WorkerError("bad_request", "a request is a JSON object")
            req_id = req.get("id")
            cmd = req.get("cmd")
            if cmd == "quit":
                out.write(json.dumps({"id": req_id, "ok": True}) + "\n")
                out.flush()
                return
            handler = getattr(worker, f"cmd_{cmd}", None) if isinstance(cmd, str) else None
            if handler is None:
                raise WorkerError("bad_request", f"unknown command {cmd!r}")
            resp = {"id": req_id, "ok": True, **handler(req)}
        except WorkerError as e:
            err: dict[str, Any] = {"code": e.code, "message": e.message}
            if e.tb:
                err["traceback"] = e.tb
                print(e.tb, file=sys.stderr)
            resp = {"id": req_id, "ok": False, "error": err}
        except ValueError as e:
            resp = {"id": req_id, "ok": False, "error": {"code": "bad_request", "message": f"not JSON: {e}"}}
        except Exception as e:  # noqa: BLE001 - a fault of the worker itself is still an answer
            tb = traceback.format_exc()
            print(tb, file=sys.stderr)
            resp = {"id": req_id, "ok": False, "error": {"code": "internal", "message": f"{type(e).__name__}: {e}", "traceback": tb}}
        out.write(json.dumps(resp, separators=(",", ":")) + "\n")
        out.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description="ARC Studio's arcengine worker (line protocol on stdio)")
    parser.add_argument("--games", action="append", default=[], help="a folder in the toolkit's environment_files layout")
    args = parser.parse_args()
    # The protocol owns the real stdout; anything a game prints goes to stderr.
    sys.stdout.flush()
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    memoize_factory_checks()
    serve(Worker(args.games), sys.stdin, protocol_out)


if __name__ == "__main__":
    main()
