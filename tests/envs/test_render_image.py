"""Card-table pictures: fixed size, hidden cards never drawn, the last move marked, and filmable."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

import patience_gym
from patience_gym.render.image import HIGHLIGHT, image_size, render_rgb, save_animation
from tests.helpers import masked_random_action

ENV_IDS = list(patience_gym.ENVS)


def _playout(env_id: str, seed: int, max_moves: int) -> list[tuple[Any, Any, int | None, Any]]:
    """(game, state, last action, previous state) along a seeded random game."""
    env = gym.make(env_id)
    game_env: Any = env.unwrapped
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    out: list[tuple[Any, Any, int | None, Any]] = [(game_env.game, game_env.state.copy(), None, None)]
    for _ in range(max_moves):
        action = masked_random_action(rng, info["action_mask"].astype(bool))
        previous = game_env.state.copy()
        _, _, terminated, truncated, info = env.step(action)
        out.append((game_env.game, game_env.state.copy(), action, previous))
        if terminated or truncated:
            break
    return out


def _has_colour(frame: np.ndarray, colour: tuple[int, int, int]) -> bool:
    return bool(np.all(frame == np.array(colour, dtype=np.uint8), axis=-1).any())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_frames_keep_one_size_over_a_game(env_id: str) -> None:
    positions = _playout(env_id, seed=7, max_moves=400)
    width, height = image_size(positions[0][0])
    for game, state, action, previous in positions[:: max(1, len(positions) // 40)] + positions[-1:]:
        frame = render_rgb(game, state, action, previous)
        assert frame.shape == (height, width, 3)
        assert frame.dtype == np.uint8
        # The move that ends a hole of a round leaves the next hole freshly dealt: nothing to frame.
        ended_hole = game.name == "golf_round" and previous is not None and previous.hole != state.hole
        assert _has_colour(frame, HIGHLIGHT) == (action is not None and not ended_hole)


def _hidden_swapped(env_id: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """``data`` with two face-down cards swapped (None where the two are alike)."""
    data = {k: (list(v) if isinstance(v, list) else v) for k, v in data.items()}
    key = {"golf": "stock", "golf_round": None, "puss_in_the_corner": "pack"}.get(data["game"], "stock")
    if key is None:  # a round: the stock of the hole in play
        data["hole_state"] = _hidden_swapped(env_id, data["hole_state"])
        return data
    hidden = data[key]
    for i in range(1, len(hidden)):
        if hidden[i] != hidden[0]:
            hidden[0], hidden[i] = hidden[i], hidden[0]
            return data
    return None


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_hidden_cards_are_never_drawn(env_id: str) -> None:
    env = gym.make(env_id)
    game_env: Any = env.unwrapped
    game = game_env.game
    for _, state, action, previous in _playout(env_id, seed=3, max_moves=12)[::4]:
        data = game.to_dict(state)
        swapped = _hidden_swapped(env_id, data)
        if swapped is None:
            continue
        other = game.from_dict(swapped)
        assert game.to_dict(other) != data
        assert np.array_equal(render_rgb(game, state, action, previous), render_rgb(game, other, action, previous))


@pytest.mark.parametrize("env_id", ["patience_gym/Golf-v0", "patience_gym/MissMilligan-v0"])
def test_visible_cards_are_drawn(env_id: str) -> None:
    """Swapping a face-up column card with a face-down one changes the picture."""
    env = gym.make(env_id)
    env.reset(seed=1)
    game_env: Any = env.unwrapped
    data = game_env.state_dict()
    data["tableau"] = [list(c) for c in data["tableau"]]
    data["stock"] = list(data["stock"])
    data["tableau"][0][-1], data["stock"][-1] = data["stock"][-1], data["tableau"][0][-1]
    other = game_env.game.from_dict(data)
    assert not np.array_equal(render_rgb(game_env.game, game_env.state), render_rgb(game_env.game, other))


def test_the_last_move_is_framed_where_it_went() -> None:
    """Golf: a play frames the new waste card; the frame sits on the waste row, not on the links."""
    env = gym.make("patience_gym/Golf-v0")
    _, info = env.reset(seed=3)
    game_env: Any = env.unwrapped
    action = int(np.flatnonzero(info["action_mask"])[0])
    env.step(action)
    frame = render_rgb(game_env.game, game_env.state, action)
    rows = np.flatnonzero(np.all(frame == np.array(HIGHLIGHT, dtype=np.uint8), axis=-1).any(axis=1))
    assert rows.min() > 250  # the waste row lies below the seven columns of five


def test_bad_inputs_are_clear_errors() -> None:
    env = gym.make("patience_gym/Golf-v0")
    env.reset(seed=0)
    game_env: Any = env.unwrapped
    with pytest.raises(ValueError, match="last_action 8 is outside 0..7"):
        render_rgb(game_env.game, game_env.state, 8)

    class Other:
        name = "klondike"

    with pytest.raises(ValueError, match="no picture layout for game 'klondike'"):
        render_rgb(Other(), None)


def test_gif_holds_every_frame(tmp_path: Path) -> None:
    frames = [render_rgb(g, s, a, p) for g, s, a, p in _playout("patience_gym/Golf-v0", seed=2, max_moves=6)]
    path = save_animation(frames, tmp_path / "game.gif", fps=4)
    with Image.open(path) as gif:
        assert gif.n_frames == len(frames)  # type: ignore[attr-defined]
        assert gif.size == (frames[0].shape[1], frames[0].shape[0])
        gif.seek(len(frames) - 1)
        last = np.asarray(gif.convert("RGB"))
    assert np.abs(last.astype(int) - frames[-1].astype(int)).mean() < 3  # one shared palette, little loss


def test_animation_file_types(tmp_path: Path) -> None:
    frame = np.zeros((16, 16, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match=r"must end in \.gif or \.mp4"):
        save_animation([frame], tmp_path / "game.avi")
    with pytest.raises(ValueError, match="no frames"):
        save_animation([], tmp_path / "game.gif")
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="imageio-ffmpeg"):
            save_animation([frame], tmp_path / "game.mp4")


class PictureGolfEnv(gym.Env[np.ndarray, np.int64]):
    """The real Golf env, showing itself as a picture the way ``render_mode="rgb_array"`` will."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self) -> None:
        self.inner: Any = gym.make("patience_gym/Golf-v0").unwrapped
        self.action_space = self.inner.action_space
        self.observation_space = self.inner.observation_space
        self.render_mode = "rgb_array"
        self.last: int | None = None
        self.previous: Any = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self.last = None
        return self.inner.reset(seed=seed, options=options)

    def step(self, action: Any) -> Any:
        self.previous = self.inner.state.copy()
        self.last = int(action)
        return self.inner.step(action)

    def render(self) -> np.ndarray:  # type: ignore[override]
        return render_rgb(self.inner.game, self.inner.state, self.last, self.previous)


def test_record_video_films_an_episode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gymnasium's RecordVideo collects a frame per step; its writer (moviepy) is stood in for by a GIF writer."""
    written: list[tuple[Path, int]] = []

    class ImageSequenceClip:
        def __init__(self, frames: list[np.ndarray], fps: float) -> None:
            self.frames, self.fps = frames, fps

        def write_videofile(self, path: str, logger: Any = None) -> None:
            gif = save_animation(self.frames, Path(path).with_suffix(".gif"), fps=self.fps)
            written.append((gif, len(self.frames)))

    try:
        import moviepy  # noqa: F401
    except ImportError:
        for name in ("moviepy", "moviepy.video", "moviepy.video.io"):
            monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
        clip_module = types.ModuleType("moviepy.video.io.ImageSequenceClip")
        clip_module.ImageSequenceClip = ImageSequenceClip  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "moviepy.video.io.ImageSequenceClip", clip_module)

    folder = tmp_path / "videos"
    env = gym.wrappers.RecordVideo(PictureGolfEnv(), str(folder), episode_trigger=lambda episode: True)
    _, info = env.reset(seed=3)
    steps = 0
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[-1]))
        steps += 1
        done = terminated or truncated
    env.close()
    videos = list(folder.glob("*.gif")) + list(folder.glob("*.mp4"))
    assert len(videos) == 1
    if written:
        assert written[0][1] == steps + 1
        with Image.open(written[0][0]) as gif:
            assert gif.n_frames == steps + 1  # type: ignore[attr-defined]
            assert gif.size == (640, 448)


def _gif_frames(path: Path) -> list[np.ndarray]:
    with Image.open(path) as gif:
        frames = []
        for i in range(gif.n_frames):  # type: ignore[attr-defined]
            gif.seek(i)
            frames.append(np.asarray(gif.convert("RGB")))
    return frames


def test_watch_films_an_agent_and_its_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agents.evaluation.watch import main as watch
    from patience_gym.records import load_record

    gif, record_path = tmp_path / "game.gif", tmp_path / "game.json"
    args = ["--env", "patience_gym/Golf-v0", "--agent", "greedy", "--seed", "3"]
    assert watch([*args, "--out", str(gif), "--record-out", str(record_path)]) == 0
    record = load_record(record_path, env_id="patience_gym/Golf-v0")
    assert record.agent == "greedy" and record.seed == 3
    assert f"{len(record.moves) + 1} frames, {len(record.moves)} moves" in capsys.readouterr().out
    filmed = _gif_frames(gif)
    assert len(filmed) == len(record.moves) + 1 and filmed[0].shape == (448, 640, 3)
    again = tmp_path / "again.gif"
    assert watch(["--record", str(record_path), "--out", str(again)]) == 0
    assert all(np.array_equal(a, b) for a, b in zip(filmed, _gif_frames(again), strict=True))


def test_watch_names_bad_requests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agents.evaluation.watch import main as watch

    cases = [
        (["--env", "patience_gym/Golf-v0", "--out", str(tmp_path / "g.avi")], "must end in .gif or .mp4"),
        (["--out", str(tmp_path / "g.gif")], "give --env"),
        (["--env", "patience_gym/Golf-v0", "--agent", "wizard", "--out", str(tmp_path / "g.gif")], "unknown agent"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit):
            watch(argv)
        assert message in capsys.readouterr().err
    assert watch(["--record", str(tmp_path / "none.json"), "--out", str(tmp_path / "g.gif")]) == 2
    assert "no game record at" in capsys.readouterr().err


def _env_draws_pictures() -> bool:
    from patience_gym.env import PatienceEnv

    return "rgb_array" in PatienceEnv.metadata["render_modes"]


@pytest.mark.skipif(not _env_draws_pictures(), reason="the env does not offer render_mode='rgb_array' yet")
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_env_renders_rgb_array(env_id: str) -> None:
    """Once wired: gym.make(..., render_mode="rgb_array").render() is this module's picture of the position."""
    env = gym.make(env_id, render_mode="rgb_array")
    game_env: Any = env.unwrapped
    _, info = env.reset(seed=2)
    frame = env.render()
    assert isinstance(frame, np.ndarray)
    assert np.array_equal(frame, render_rgb(game_env.game, game_env.state))
    action = int(np.flatnonzero(info["action_mask"])[0])
    previous = game_env.state.copy()
    env.step(action)
    after = env.render()
    assert isinstance(after, np.ndarray)
    assert np.array_equal(after, render_rgb(game_env.game, game_env.state, action, previous))
