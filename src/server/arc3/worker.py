"""ARC Studio's worker for arcengine games: the official engine, driven over stdio.

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
        }
        if self.level_count is None:
            try:
                self.instantiate(0)
                out["level_count"] = self.level_count
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


class Worker:
    def __init__(self, dirs: list[str]) -> None:
        self.dirs = [Path(d) for d in dirs]
        self.games: dict[str, Game] = {}
        self.runs: dict[str, Run] = {}
        # Pinned versions of games, by the folder holding their files (see ``open``'s code_dir).
        self.pinned: dict[str, Game] = {}
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
                    game.cls, game.level_count = old.cls, old.level_count
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
        self.runs.pop(run_id, None)
        run = Run(game, game.instantiate(seed), run_id)
        self.runs[run_id] = run
        return run, self.perform(run, {"action": "RESET"})

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
        return {"closed": self.runs.pop(str(req.get("run")), None) is not None}

    def cmd_reload(self, req: dict[str, Any]) -> dict[str, Any]:
        self.scan()
        game = self.game(req.get("game_id"))
        game.cls = None
        game.level_count = None
        game.load()
        return {"game_id": game.game_id, "file": str(game.source_file())}

    # --- acting ---------------------------------------------------------------------------------

    def perform(self, run: Run, req: dict[str, Any]) -> dict[str, Any]:
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
        return frame_data(fd, run.game.game_id, run.guid)


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
    serve(Worker(args.games), sys.stdin, protocol_out)


if __name__ == "__main__":
    main()
