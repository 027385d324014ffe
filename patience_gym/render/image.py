"""Card-table pictures of any position, for ``render_mode="rgb_array"``, GIFs and videos.

:func:`render_rgb` draws the position of any patience_gym game as an RGB array
of a fixed size per game (video writers need constant frames). Cards are drawn
with Pillow only: the suit symbols are shapes, so no font with card glyphs is
needed. Face-down cards (the stocks, the pack) are drawn as backs and never
read: two positions that differ only in hidden cards give the same picture.

The layouts live in :mod:`patience_gym.render.image_golf`,
:mod:`patience_gym.render.image_milligan` and :mod:`patience_gym.render.image_puss`;
this module holds the drawing kit they share.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFont

from patience_gym.cards import RANK, RED, SUIT
from patience_gym.specs import SPECS

#: Game name -> module of its layout (each has ``SIZE`` and ``draw(game, state, last_action, previous) -> Image``),
#: from the game table (:mod:`patience_gym.specs`).
LAYOUTS: dict[str, str] = {spec.game: spec.image_layout for spec in SPECS}

# --- colours -------------------------------------------------------------------
FELT = (26, 104, 62)
FELT_DARK = (17, 72, 43)
FELT_LINE = (70, 150, 104)
INK = (240, 244, 236)
INK_DIM = (170, 205, 182)
RED_INK = (200, 24, 42)
BLACK_INK = (22, 22, 28)
HIGHLIGHT = (255, 206, 0)
SOURCE = (255, 150, 40)
_FACE = (252, 252, 248)
_FACE_EDGE = (120, 120, 120)
_BACK = (36, 70, 150)
_BACK_LINE = (92, 128, 210)

_RANK_TEXT = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SS = 4  # supersampling factor of the card sprites


def render_rgb(game: Any, state: Any, last_action: int | None = None, previous: Any = None) -> np.ndarray:
    """The position as an ``(H, W, 3)`` uint8 picture; ``last_action`` (the move just made) is highlighted.

    ``previous``, the position before that move, is optional: with it, the foundation pile a card went
    to in Miss Milligan and its kin is marked too (the position after the move does not tell which).
    The size depends on the game only (:func:`image_size`).
    """
    return np.asarray(render_image(game, state, last_action, previous), dtype=np.uint8)


def render_image(game: Any, state: Any, last_action: int | None = None, previous: Any = None) -> Image.Image:
    """The position as a Pillow RGB image (see :func:`render_rgb`)."""
    if last_action is not None and not 0 <= int(last_action) < game.num_actions:
        raise ValueError(f"last_action {last_action} is outside 0..{game.num_actions - 1} for {game.name}")
    move = None if last_action is None else int(last_action)
    image: Image.Image = _layout(game).draw(game, state, move, previous)
    return image


def image_size(game: Any) -> tuple[int, int]:
    """``(width, height)`` of every picture of ``game``."""
    size: tuple[int, int] = _layout(game).SIZE
    return size


def _layout(game: Any) -> Any:
    module = LAYOUTS.get(getattr(game, "name", ""))
    if module is None:
        raise ValueError(f"no picture layout for game {getattr(game, 'name', game)!r}; known: {', '.join(LAYOUTS)}")
    return importlib.import_module(module)


# --- animations -----------------------------------------------------------------
def save_animation(frames: Sequence[np.ndarray], path: str | Path, fps: float = 2.0, hold_last: int = 3) -> Path:
    """Write ``frames`` as an animated GIF (Pillow) or, for ``.mp4``, a video (needs ``imageio-ffmpeg``).

    The last frame is shown ``hold_last`` times as long, so the end position can be read.
    """
    path = Path(path)
    if not frames:
        raise ValueError("no frames to save")
    suffix = path.suffix.lower()
    if suffix == ".gif":
        images = [Image.fromarray(f) for f in frames]
        ms = round(1000 / fps)
        durations = [ms] * (len(images) - 1) + [ms * max(1, hold_last)]
        # One shared palette, taken from frames across the game, keeps the colours steady between frames.
        picks = sorted({0, 1, len(images) // 2, len(images) - 1} & set(range(len(images))))
        montage = Image.new("RGB", (images[0].width, images[0].height * len(picks)))
        for i, pick in enumerate(picks):
            montage.paste(images[pick], (0, i * images[0].height))
        palette = montage.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
        quantized = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
        quantized[0].save(path, save_all=True, append_images=quantized[1:], duration=durations, loop=0, disposal=1)
        return path
    if suffix == ".mp4":
        try:
            import imageio.v2 as imageio
            import imageio_ffmpeg  # noqa: F401 - the MP4 writer's backend
        except ImportError:
            raise ValueError(f"cannot write {path}: MP4 needs the imageio-ffmpeg package; write a .gif") from None
        frames = list(frames) + [frames[-1]] * max(0, hold_last - 1)
        imageio.mimwrite(path, frames, fps=fps, macro_block_size=16)  # type: ignore[arg-type]
        return path
    raise ValueError(f"cannot write {path}: the file name must end in .gif or .mp4")


# --- fonts ------------------------------------------------------------------------
@functools.lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans where the system has it, else Pillow's own scalable font."""
    for name in ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf") if bold else ("DejaVuSans.ttf",):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


# --- suit shapes --------------------------------------------------------------------
def draw_suit(draw: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, size: float, fill: Any) -> None:
    """Suit ``suit`` (0..3: clubs, diamonds, hearts, spades) as a shape ``size`` high, centred on ``(cx, cy)``."""
    s = size / 2
    if suit == 1:  # diamond
        draw.polygon([(cx, cy - s), (cx + 0.75 * s, cy), (cx, cy + s), (cx - 0.75 * s, cy)], fill=fill)
        return
    if suit == 2:  # heart: two lobes and a point
        r = 0.5 * s
        for dx in (-r, r):
            draw.ellipse([cx + dx - r, cy - s + 0.1 * s, cx + dx + r, cy - s + 0.1 * s + 2 * r], fill=fill)
        draw.polygon([(cx - 2 * r, cy - 0.35 * s), (cx + 2 * r, cy - 0.35 * s), (cx, cy + s)], fill=fill)
        return
    # spade and club share a stem
    draw.polygon([(cx, cy + 0.1 * s), (cx - 0.38 * s, cy + s), (cx + 0.38 * s, cy + s)], fill=fill)
    if suit == 3:  # spade: an upturned heart
        r = 0.48 * s
        for dx in (-r, r):
            draw.ellipse([cx + dx - r, cy + 0.45 * s - 2 * r, cx + dx + r, cy + 0.45 * s], fill=fill)
        draw.polygon([(cx - 2 * r, cy + 0.05 * s), (cx + 2 * r, cy + 0.05 * s), (cx, cy - s)], fill=fill)
        return
    r = 0.42 * s  # club: three leaves
    for lx, ly in ((cx, cy - s + r), (cx - 0.95 * r, cy + 0.05 * s), (cx + 0.95 * r, cy + 0.05 * s)):
        draw.ellipse([lx - r, ly - r, lx + r, ly + r], fill=fill)
    draw.rectangle([cx - 0.2 * r, cy - 0.4 * s, cx + 0.2 * r, cy + 0.3 * s], fill=fill)


# --- card sprites ---------------------------------------------------------------------
def _corner_radius(w: int) -> int:
    return max(3, w // 10)


@functools.lru_cache(maxsize=512)
def card_face(card: int, w: int, h: int) -> Image.Image:
    """The face of ``card`` (0..51), ``w`` by ``h``, as an RGBA sprite.

    The index (rank and suit side by side) sits in the top strip, so a card
    overlapped by the next one in a column still shows what it is; the
    same index, turned, sits at the foot, and a large suit fills the middle.
    """
    W, H = w * _SS, h * _SS
    im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rounded_rectangle([0, 0, W - 1, H - 1], radius=_corner_radius(w) * _SS, fill=_FACE, outline=_FACE_EDGE, width=_SS)
    ink = RED_INK if RED[card] else BLACK_INK
    index = _index(card, w, ink)
    im.alpha_composite(index, (3 * _SS, 2 * _SS))
    turned = index.rotate(180)
    im.alpha_composite(turned, (W - turned.width - 3 * _SS, H - turned.height - 2 * _SS))
    draw_suit(d, SUIT[card], W / 2, H / 2 + 0.04 * H, 0.36 * H, ink)
    return im.resize((w, h), Image.Resampling.LANCZOS)


def _index(card: int, w: int, ink: tuple[int, int, int]) -> Image.Image:
    """Rank text then a small suit, at supersampled size."""
    text = _RANK_TEXT[RANK[card]]
    size = max(9, round(w * 0.26))
    f = font(size * _SS, bold=True)
    left, top, right, bottom = f.getbbox(text)
    suit_h = size * 0.9 * _SS
    tw = right - left
    im = Image.new("RGBA", (int(tw + suit_h + 3 * _SS), int(max(bottom - top, suit_h) + 2 * _SS)), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.text((-left, -top), text, font=f, fill=ink)
    draw_suit(d, SUIT[card], tw + _SS + suit_h / 2, (bottom - top) / 2, suit_h, ink)
    return im


@functools.lru_cache(maxsize=16)
def card_back(w: int, h: int) -> Image.Image:
    """The back of a card, ``w`` by ``h``, as an RGBA sprite."""
    W, H = w * _SS, h * _SS
    im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    r = _corner_radius(w) * _SS
    d.rounded_rectangle([0, 0, W - 1, H - 1], radius=r, fill=_FACE, outline=_FACE_EDGE, width=_SS)
    m = 4 * _SS
    d.rounded_rectangle([m, m, W - 1 - m, H - 1 - m], radius=r // 2, fill=_BACK)
    step = 7 * _SS
    inner = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    di = ImageDraw.Draw(inner)
    for x in range(-H, W + H, step):
        di.line([(x, 0), (x + H, H)], fill=_BACK_LINE, width=_SS)
        di.line([(x, H), (x + H, 0)], fill=_BACK_LINE, width=_SS)
    clip = Image.new("L", (W, H), 0)
    edge = m + _SS
    ImageDraw.Draw(clip).rounded_rectangle([edge, edge, W - 1 - edge, H - 1 - edge], radius=r // 2, fill=255)
    im.paste(inner, (0, 0), ImageChops.multiply(inner.getchannel("A"), clip))
    return im.resize((w, h), Image.Resampling.LANCZOS)


# --- the table ------------------------------------------------------------------------
class Table:
    """A felt table of a fixed size with cards, piles, labels and highlights drawn on it."""

    def __init__(self, size: tuple[int, int], card_w: int, card_h: int) -> None:
        self.image = Image.new("RGB", size, FELT)
        self.draw = ImageDraw.Draw(self.image)
        self.w, self.h = card_w, card_h

    # cards
    def card(self, x: float, y: float, card: int) -> None:
        """A face-up card with its top-left corner at ``(x, y)``."""
        sprite = card_face(card, self.w, self.h)
        self.image.paste(sprite, (round(x), round(y)), sprite)

    def back(self, x: float, y: float) -> None:
        """A face-down card."""
        sprite = card_back(self.w, self.h)
        self.image.paste(sprite, (round(x), round(y)), sprite)

    def slot(self, x: float, y: float, label: str = "", suit: int | None = None) -> None:
        """An empty place for a pile: an outline, with a faint label or suit."""
        box = [round(x), round(y), round(x) + self.w - 1, round(y) + self.h - 1]
        self.draw.rounded_rectangle(box, radius=_corner_radius(self.w), outline=FELT_LINE, width=2, fill=FELT_DARK)
        if suit is not None:
            draw_suit(self.draw, suit, x + self.w / 2, y + self.h / 2, self.h * 0.3, FELT_LINE)
        elif label:
            self.text(x + self.w / 2, y + self.h / 2, label, size=max(10, self.w // 5), fill=FELT_LINE, anchor="mm")

    def stock(self, x: float, y: float, count: int, label: str = "") -> None:
        """A face-down pile of ``count`` cards, a little thickness showing; the count beneath."""
        if count <= 0:
            self.slot(x, y, "empty")
        else:
            layers = min(3, (count + 7) // 8)
            for i in range(layers - 1, -1, -1):
                self.back(x + 2 * i, y - 2 * i)
        caption = f"{label} {count}".strip()
        self.text(x + self.w / 2, y + self.h + 4, caption, size=13, anchor="mt")

    def column(self, x: float, y: float, cards: Sequence[int], offset: float) -> None:
        """Cards overlapping downwards from ``(x, y)``, each ``offset`` below the one before."""
        for i, c in enumerate(cards):
            self.card(x, y + i * offset, c)

    # decorations
    def highlight(
        self, x: float, y: float, height: float | None = None, colour: Any = HIGHLIGHT, width: int = 3
    ) -> None:
        """A bright frame around a card (or a run of cards ``height`` tall) at ``(x, y)``."""
        h = self.h if height is None else height
        pad = width
        self.draw.rounded_rectangle(
            [x - pad, y - pad, x + self.w - 1 + pad, y + h - 1 + pad],
            radius=_corner_radius(self.w) + pad,
            outline=colour,
            width=width,
        )

    def source(self, x: float, y: float, height: float | None = None) -> None:
        """A dashed frame where the last move came from."""
        h = self.h if height is None else height
        x0, y0, x1, y1 = x - 2, y - 2, x + self.w + 1, y + h + 1
        dash = 7
        for a, b, fixed, horizontal in (
            (x0, x1, y0, True),
            (x0, x1, y1, True),
            (y0, y1, x0, False),
            (y0, y1, x1, False),
        ):
            t = a
            while t < b:
                end = min(t + dash, b)
                line = [(t, fixed), (end, fixed)] if horizontal else [(fixed, t), (fixed, end)]
                self.draw.line(line, fill=SOURCE, width=2)
                t += 2 * dash

    def text(
        self, x: float, y: float, text: str, size: int = 14, fill: Any = INK, anchor: str = "la", bold: bool = False
    ) -> None:
        self.draw.text((x, y), text, font=font(size, bold), fill=fill, anchor=anchor)

    def bar(self, y0: int, y1: int) -> None:
        """A dark band across the table (for the status lines)."""
        self.draw.rectangle([0, y0, self.image.width, y1], fill=FELT_DARK)

    def status(self, top: str, right: str, bottom: str, bottom_right: str = "") -> None:
        """The title/score line at the top and the move/status line at the foot."""
        W, H = self.image.size
        self.bar(0, 27)
        self.text(10, 14, top, size=15, anchor="lm", bold=True)
        self.text(W - 10, 14, right, size=15, anchor="rm", bold=True)
        self.bar(H - 26, H)
        self.text(10, H - 13, bottom, size=13, anchor="lm", fill=INK_DIM)
        if bottom_right:
            self.text(W - 10, H - 13, bottom_right, size=13, anchor="rm", fill=INK_DIM)


def fan_offset(count: int, space: float, card_h: int, preferred: float) -> float:
    """The overlap step that fits ``count`` cards into ``space`` pixels (``preferred`` when they fit)."""
    if count <= 1:
        return preferred
    return max(1.0, min(preferred, (space - card_h) / (count - 1)))


def last_move_text(game: Any, last_action: int | None) -> str:
    """``"last move: c3>w"``, or the empty string before the first move."""
    return "" if last_action is None else f"last move: {game.describe_action(last_action)}"


def outcome_text(game: Any, state: Any) -> str:
    """``"won"``, ``"game over"`` or the empty string while the game goes on."""
    if game.is_won(state):
        return "won"
    return "game over" if game.is_over(state) else ""


def join(parts: Iterable[str]) -> str:
    """The non-empty ``parts`` joined by a middle dot."""
    return "  ·  ".join(p for p in parts if p)
