"""The official toolkit in ONLINE mode, pointed at an ARC Studio server (agents.test.ts runs it).

Arguments: base_url api_key push_game_id push_level1_actions(comma separated) click_game_id recordings_dir [tags(comma separated)].
Prints one JSON object: the games listed, every step's fields, the closed scorecard.
"""
import json
import logging
import sys

from arc_agi import Arcade, OperationMode
from arcengine import GameAction

base, key, push_id, push_moves, click_id, recordings = sys.argv[1:7]
tags = sys.argv[7].split(",") if len(sys.argv) > 7 else ["toolkit-test"]
logger = logging.getLogger("toolkit-client")
logger.addHandler(logging.NullHandler())
logger.propagate = False

arcade = Arcade(operation_mode=OperationMode.ONLINE, arc_base_url=base, arc_api_key=key, recordings_dir=recordings, logger=logger)
out = {"games": [e.game_id for e in arcade.get_environments()], "steps": []}
card = arcade.open_scorecard(tags=tags)
out["card_id"] = card


def note(game, label, fd):
    out["steps"].append({
        "game": game, "label": label, "state": fd.state.name, "levels_completed": fd.levels_completed,
        "win_levels": fd.win_levels, "full_reset": fd.full_reset, "available_actions": list(fd.available_actions),
        "frames": len(fd.frame), "shape": list(fd.frame[-1].shape) if len(fd.frame) else None, "guid": fd.guid,
    })


# A built-in game: the opening RESET, the recorded solution of level 1, a full reset.
env = arcade.make(push_id, scorecard_id=card, save_recording=True)
note(push_id, "RESET", env.observation_space)
for name in push_moves.split(","):
    note(push_id, name, env.step(GameAction[name], reasoning={"why": "recorded solution"}))
note(push_id, "RESET", env.step(GameAction.RESET))

# An arcengine game: three clicks win level 1, then a full reset.
env2 = arcade.make(click_id, scorecard_id=card, save_recording=True)
note(click_id, "RESET", env2.observation_space)
for _ in range(3):
    note(click_id, "ACTION6", env2.step(GameAction.ACTION6, data={"x": 60, "y": 32}))
note(click_id, "RESET", env2.step(GameAction.RESET))

live = arcade.get_scorecard(card)
out["live_score"] = live.score if live else None
closed = arcade.close_scorecard(card)
out["scorecard"] = closed.model_dump(mode="json") if closed else None
print(json.dumps(out))
