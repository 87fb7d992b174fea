"""A line plot drawn with numpy into a pixel buffer and written as a PNG with zlib (Blender
ships no matplotlib): the Study panel's plot of a summary column against a parameter.

``plot_pixels(lines)`` gives an (height, width, 3) uint8 image, row 0 at the top: white
background, a frame round the plot area, ticks at 1-2-5 steps with their numbers (a 5 x 7
pixel font of the ASCII letters, digits and signs, drawn at twice its size), one coloured
line with square marks per series (a gap where a value is NaN), with several series a
legend of their colours and values at the right, and the axes' labels (the parameter and
its unit, the summary column) when given.  ``png_bytes`` / ``write_png`` encode it (8-bit RGB,
no filter), ``read_png`` decodes such a file again (for tests).
"""
from __future__ import annotations

import math
import struct
import zlib
from typing import Sequence

import numpy as np

# 5 x 7 glyphs, rows top to bottom
FONT = {
    "0": ("01110", "10001", "10011", "10101", "11001", "10001", "01110"),
    "1": ("00100", "01100", "00100", "00100", "00100", "00100", "01110"),
    "2": ("01110", "10001", "00001", "00010", "00100", "01000", "11111"),
    "3": ("11110", "00001", "00001", "01110", "00001", "00001", "11110"),
    "4": ("00010", "00110", "01010", "10010", "11111", "00010", "00010"),
    "5": ("11111", "10000", "11110", "00001", "00001", "10001", "01110"),
    "6": ("00110", "01000", "10000", "11110", "10001", "10001", "01110"),
    "7": ("11111", "00001", "00010", "00100", "01000", "01000", "01000"),
    "8": ("01110", "10001", "10001", "01110", "10001", "10001", "01110"),
    "9": ("01110", "10001", "10001", "01111", "00001", "00010", "01100"),
    ".": ("00000", "00000", "00000", "00000", "00000", "01100", "01100"),
    "-": ("00000", "00000", "00000", "11111", "00000", "00000", "00000"),
    "+": ("00000", "00100", "00100", "11111", "00100", "00100", "00000"),
    "e": ("00000", "00000", "01110", "10001", "11111", "10000", "01110"),
    "=": ("00000", "00000", "11111", "00000", "11111", "00000", "00000"),
    "n": ("00000", "00000", "10110", "11001", "10001", "10001", "10001"),
    "a": ("00000", "00000", "01110", "00001", "01111", "10001", "01111"),
    " ": ("00000",) * 7,
    # the rest of the ASCII letters and the signs of parameter and column names (axis labels)
    "A": ("01110", "10001", "10001", "11111", "10001", "10001", "10001"),
    "B": ("11110", "10001", "10001", "11110", "10001", "10001", "11110"),
    "C": ("01110", "10001", "10000", "10000", "10000", "10001", "01110"),
    "D": ("11110", "10001", "10001", "10001", "10001", "10001", "11110"),
    "E": ("11111", "10000", "10000", "11110", "10000", "10000", "11111"),
    "F": ("11111", "10000", "10000", "11110", "10000", "10000", "10000"),
    "G": ("01110", "10001", "10000", "10111", "10001", "10001", "01111"),
    "H": ("10001", "10001", "10001", "11111", "10001", "10001", "10001"),
    "I": ("01110", "00100", "00100", "00100", "00100", "00100", "01110"),
    "J": ("00111", "00010", "00010", "00010", "00010", "10010", "01100"),
    "K": ("10001", "10010", "10100", "11000", "10100", "10010", "10001"),
    "L": ("10000", "10000", "10000", "10000", "10000", "10000", "11111"),
    "M": ("10001", "11011", "10101", "10101", "10001", "10001", "10001"),
    "N": ("10001", "10001", "11001", "10101", "10011", "10001", "10001"),
    "O": ("01110", "10001", "10001", "10001", "10001", "10001", "01110"),
    "P": ("11110", "10001", "10001", "11110", "10000", "10000", "10000"),
    "Q": ("01110", "10001", "10001", "10001", "10101", "10010", "01101"),
    "R": ("11110", "10001", "10001", "11110", "10100", "10010", "10001"),
    "S": ("01111", "10000", "10000", "01110", "00001", "00001", "11110"),
    "T": ("11111", "00100", "00100", "00100", "00100", "00100", "00100"),
    "U": ("10001", "10001", "10001", "10001", "10001", "10001", "01110"),
    "V": ("10001", "10001", "10001", "10001", "10001", "01010", "00100"),
    "W": ("10001", "10001", "10001", "10101", "10101", "10101", "01010"),
    "X": ("10001", "10001", "01010", "00100", "01010", "10001", "10001"),
    "Y": ("10001", "10001", "10001", "01010", "00100", "00100", "00100"),
    "Z": ("11111", "00001", "00010", "00100", "01000", "10000", "11111"),
    "b": ("10000", "10000", "10110", "11001", "10001", "10001", "11110"),
    "c": ("00000", "00000", "01110", "10000", "10000", "10001", "01110"),
    "d": ("00001", "00001", "01101", "10011", "10001", "10001", "01111"),
    "f": ("00110", "01001", "01000", "11100", "01000", "01000", "01000"),
    "g": ("00000", "01111", "10001", "10001", "01111", "00001", "01110"),
    "h": ("10000", "10000", "10110", "11001", "10001", "10001", "10001"),
    "i": ("00100", "00000", "01100", "00100", "00100", "00100", "01110"),
    "j": ("00010", "00000", "00110", "00010", "00010", "10010", "01100"),
    "k": ("10000", "10000", "10010", "10100", "11000", "10100", "10010"),
    "l": ("01100", "00100", "00100", "00100", "00100", "00100", "01110"),
    "m": ("00000", "00000", "11010", "10101", "10101", "10001", "10001"),
    "o": ("00000", "00000", "01110", "10001", "10001", "10001", "01110"),
    "p": ("00000", "00000", "11110", "10001", "11110", "10000", "10000"),
    "q": ("00000", "00000", "01101", "10011", "01111", "00001", "00001"),
    "r": ("00000", "00000", "10110", "11001", "10000", "10000", "10000"),
    "s": ("00000", "00000", "01110", "10000", "01110", "00001", "11110"),
    "t": ("01000", "01000", "11100", "01000", "01000", "01001", "00110"),
    "u": ("00000", "00000", "10001", "10001", "10001", "10011", "01101"),
    "v": ("00000", "00000", "10001", "10001", "10001", "01010", "00100"),
    "w": ("00000", "00000", "10001", "10001", "10101", "10101", "01010"),
    "x": ("00000", "00000", "10001", "01010", "00100", "01010", "10001"),
    "y": ("00000", "00000", "10001", "10001", "01111", "00001", "01110"),
    "z": ("00000", "00000", "11111", "00010", "00100", "01000", "11111"),
    "(": ("00010", "00100", "01000", "01000", "01000", "00100", "00010"),
    ")": ("01000", "00100", "00010", "00010", "00010", "00100", "01000"),
    "[": ("01110", "01000", "01000", "01000", "01000", "01000", "01110"),
    "]": ("01110", "00010", "00010", "00010", "00010", "00010", "01110"),
    "/": ("00000", "00001", "00010", "00100", "01000", "10000", "00000"),
    ":": ("00000", "01100", "01100", "00000", "01100", "01100", "00000"),
    ",": ("00000", "00000", "00000", "00000", "01100", "00100", "01000"),
    "_": ("00000", "00000", "00000", "00000", "00000", "00000", "11111"),
    "'": ("01100", "00100", "01000", "00000", "00000", "00000", "00000"),
    '"': ("01010", "01010", "01010", "00000", "00000", "00000", "00000"),
    "^": ("00100", "01010", "10001", "00000", "00000", "00000", "00000"),
    "*": ("00000", "00100", "10101", "01110", "10101", "00100", "00000"),
    "%": ("11000", "11001", "00010", "00100", "01000", "10011", "00011"),
    "#": ("01010", "01010", "11111", "01010", "11111", "01010", "01010"),
    "!": ("00100", "00100", "00100", "00100", "00100", "00000", "00100"),
    "?": ("01110", "10001", "00001", "00010", "00100", "00000", "00100"),
    ";": ("00000", "01100", "01100", "00000", "01100", "00100", "01000"),
    "<": ("00010", "00100", "01000", "10000", "01000", "00100", "00010"),
    ">": ("01000", "00100", "00010", "00001", "00010", "00100", "01000"),
}
GLYPHS = {c: np.array([[ch == "1" for ch in row] for row in rows]) for c, rows in FONT.items()}
SCALE = 2                                   # font pixels per glyph pixel
ADVANCE, ROWS = 6, 7                        # a glyph's advance (5 + a gap) and height
CHAR_W, CHAR_H = ADVANCE * SCALE, ROWS * SCALE       # the same in pixels
COLOURS = np.array([(31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14),
                    (148, 103, 189), (140, 86, 75), (227, 119, 194), (23, 190, 207)], dtype=np.uint8)
INK = np.array((0, 0, 0), dtype=np.uint8)
GRID = np.array((225, 225, 225), dtype=np.uint8)
LEFT, BOTTOM, TOP, RIGHT = 100, 40, 20, 20      # margins, pixels
LEGEND = 130                                    # extra right margin with several series


def nice_ticks(lo: float, hi: float, count: int = 5) -> np.ndarray:
    """Tick values at a 1, 2 or 5 times a power of ten step covering [lo, hi] with about
    ``count`` ticks (a degenerate range is widened around its value)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0.0, 1.0
    if hi < lo:
        lo, hi = hi, lo
    if hi - lo <= 1e-12 * max(1.0, abs(lo), abs(hi)):
        pad = 0.5 * abs(lo) if lo != 0.0 else 0.5
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1.0, 2.0, 5.0, 10.0) if m * mag >= raw)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return np.arange(first, last + 1) * step


def tick_text(v: float, step: float) -> str:
    """A tick's number, as short as the step allows."""
    if v == 0.0 or abs(v) < 1e-12 * step:
        return "0"
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        return f"{v:.2e}".replace("e+0", "e").replace("e-0", "e-").replace("e+", "e")
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{v:.{decimals}f}"


def text_width(text: str, scale: int = SCALE) -> int:
    return len(text) * ADVANCE * scale - scale


def text_mask(text: str, scale: int = SCALE) -> np.ndarray:
    """The pixels of ``text`` (ROWS scale rows, ADVANCE scale columns a character);
    characters outside FONT are blanks."""
    row = np.hstack([np.pad(GLYPHS.get(ch, GLYPHS[" "]), ((0, 0), (0, 1))) for ch in text]) \
        if text else np.zeros((ROWS, 1), dtype=bool)
    return np.kron(row, np.ones((scale, scale), dtype=bool))[:, : max(text_width(text, scale), 1)]


def paste(img: np.ndarray, mask: np.ndarray, x: int, y: int, colour=INK) -> None:
    """``mask``'s pixels coloured with their top-left corner at pixel (x, y), clipped."""
    h, w = mask.shape
    ys, xs = slice(max(y, 0), min(y + h, img.shape[0])), slice(max(x, 0), min(x + w, img.shape[1]))
    if ys.start < ys.stop and xs.start < xs.stop:
        img[ys, xs][mask[ys.start - y:ys.stop - y, xs.start - x:xs.stop - x]] = colour


def draw_text(img: np.ndarray, text: str, x: int, y: int, colour=INK, scale: int = SCALE) -> None:
    """Text with its top-left corner at pixel (x, y); characters outside FONT are blanks."""
    paste(img, text_mask(text, scale), x, y, colour)


def fit(text: str, pixels: int, scale: int = SCALE) -> str:
    """``text``, cut to end in "..." where it is wider than ``pixels``; a unit in brackets at
    its end ("name (N m)") is kept, the name cut before it."""
    if text_width(text, scale) <= pixels:
        return text
    room = (pixels + scale) // (ADVANCE * scale) - 3          # characters besides the "..."
    head, sep, unit = text.rpartition(" (")
    if sep and unit.endswith(")") and len(sep + unit) < room:
        return head[:room - len(sep + unit)] + "..." + sep + unit
    return text[:max(0, room)] + "..."


def draw_segment(img: np.ndarray, p: Sequence[float], q: Sequence[float], colour, width: int = 2) -> None:
    """A straight line from pixel p to q (x, y), ``width`` pixels thick, clipped."""
    n = int(max(abs(q[0] - p[0]), abs(q[1] - p[1]))) + 1
    t = np.linspace(0.0, 1.0, n)
    xs = np.rint(p[0] + t * (q[0] - p[0])).astype(int)
    ys = np.rint(p[1] + t * (q[1] - p[1])).astype(int)
    for dx in range(width):
        for dy in range(width):
            x, y = xs + dx - width // 2, ys + dy - width // 2
            ok = (x >= 0) & (x < img.shape[1]) & (y >= 0) & (y < img.shape[0])
            img[y[ok], x[ok]] = colour


def draw_box(img: np.ndarray, x: int, y: int, half: int, colour) -> None:
    img[max(y - half, 0):y + half + 1, max(x - half, 0):x + half + 1] = colour


def plot_pixels(lines: list[tuple[float | None, np.ndarray, np.ndarray]], width: int = 800,
                height: int = 500, xlabel: str = "", ylabel: str = "",
                legend_title: str = "") -> np.ndarray:
    """The plot of ``lines`` [(legend value or None, x, y)] (module docstring); NaN values
    leave gaps; no finite value at all gives the empty axes.  ``xlabel`` under the x axis's
    numbers, ``ylabel`` turned a quarter left of the y axis's, ``legend_title`` over the
    legend (what its values are), each cut with "..." where it does not fit."""
    img = np.full((height, width, 3), 255, dtype=np.uint8)
    legend = len(lines) > 1
    label = CHAR_H + 12                             # a label's band, pixels
    x0 = LEFT + (label if ylabel else 0)
    x1 = width - RIGHT - (LEGEND if legend else 0)
    y0 = TOP + (CHAR_H // SCALE + 6 if legend and legend_title else 0)
    y1 = height - BOTTOM - (label if xlabel else 0)     # plot area rows (top, bottom)
    if xlabel:
        text = fit(xlabel, x1 - x0)
        draw_text(img, text, (x0 + x1 - text_width(text)) // 2, y1 + 8 + CHAR_H + 10)
    if ylabel:
        mask = np.rot90(text_mask(fit(ylabel, y1 - y0)))      # reading upwards
        paste(img, mask, 6, (y0 + y1 - mask.shape[0]) // 2)
    if legend and legend_title:                     # (small: the legend is narrow)
        draw_text(img, fit(legend_title, LEGEND - 12, 1), x1 + 12, y0 - CHAR_H // SCALE - 2,
                  scale=1)
    xs = np.concatenate([np.asarray(x, dtype=float) for _, x, _ in lines]) if lines else np.zeros(0)
    ys = np.concatenate([np.asarray(y, dtype=float) for _, _, y in lines]) if lines else np.zeros(0)
    fx, fy = xs[np.isfinite(xs)], ys[np.isfinite(ys) & np.isfinite(xs)]
    xt = nice_ticks(fx.min(), fx.max()) if fx.size else nice_ticks(0.0, 1.0)
    yt = nice_ticks(fy.min(), fy.max()) if fy.size else nice_ticks(0.0, 1.0)

    def px(v):
        return x0 + (np.asarray(v, dtype=float) - xt[0]) / (xt[-1] - xt[0]) * (x1 - x0)

    def py(v):
        return y1 - (np.asarray(v, dtype=float) - yt[0]) / (yt[-1] - yt[0]) * (y1 - y0)

    for v in xt:                                # grid, ticks and their numbers
        c = int(round(float(px(v))))
        img[y0:y1, c] = GRID
        img[y1:y1 + 5, c] = INK
        s = tick_text(v, xt[1] - xt[0] if len(xt) > 1 else 1.0)
        draw_text(img, s, c - text_width(s) // 2, y1 + 8)
    for v in yt:
        r = int(round(float(py(v))))
        img[r, x0:x1] = GRID
        img[r, x0 - 5:x0] = INK
        s = tick_text(v, yt[1] - yt[0] if len(yt) > 1 else 1.0)
        draw_text(img, s, x0 - 8 - text_width(s), r - CHAR_H // 2)
    for k, (value, x, y) in enumerate(lines):
        colour = COLOURS[k % len(COLOURS)]
        cx, cy = px(x), py(y)
        ok = np.isfinite(cx) & np.isfinite(cy)
        for j in range(len(cx) - 1):
            if ok[j] and ok[j + 1]:
                draw_segment(img, (cx[j], cy[j]), (cx[j + 1], cy[j + 1]), colour)
        for j in np.flatnonzero(ok):
            draw_box(img, int(round(cx[j])), int(round(cy[j])), 3, colour)
        if legend and value is not None:
            ly = y0 + 10 + k * (CHAR_H + 8)
            draw_segment(img, (x1 + 12, ly + CHAR_H // 2), (x1 + 36, ly + CHAR_H // 2), colour, 3)
            draw_text(img, f"{value:.4g}", x1 + 42, ly)
    img[y0:y1 + 1, x0] = img[y0:y1 + 1, x1] = INK      # the frame, over the lines' ends
    img[y0, x0:x1 + 1] = img[y1, x0:x1 + 1] = INK
    return img


def png_bytes(img: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of ``img`` (height, width, 3) uint8, row 0 at the top."""
    h, w, _ = img.shape
    raw = np.concatenate([np.zeros((h, 1), dtype=np.uint8),
                          np.ascontiguousarray(img, dtype=np.uint8).reshape(h, 3 * w)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))


def write_png(path: str, img: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(png_bytes(img))


def read_png(data: bytes) -> np.ndarray:
    """The pixels of a PNG as ``png_bytes`` writes it (8-bit RGB, filter 0); ValueError on a
    bad signature or chunk checksum."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, size = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError(f"bad checksum in chunk {kind!r}")
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h = size
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + 3 * w)
    if np.any(raw[:, 0]):
        raise ValueError("only filter type 0 is read here")
    return raw[:, 1:].reshape(h, w, 3).copy()
