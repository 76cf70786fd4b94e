"""The ``local`` video engine: a real H.264 MP4 made offline from one still photo.

The photo is laid out on a 16:9 canvas (photos of another shape sit on a blurred,
darkened copy of themselves), then filmed with a slow "Ken Burns" move: the first frame
shows the whole canvas, the last is closer on the detected face (or on the centre when
there is no face). The prompt, when given, is drawn as a caption in a semi-transparent
band in the bottom third. The clip fades in from and out to black.

Frames are computed with numpy/OpenCV (one ``cv2.warpAffine`` from a pre-scaled canvas
per frame) and piped as raw RGB to the ffmpeg binary that ``imageio-ffmpeg`` ships:
libx264, yuv420p, ``+faststart`` (the index sits at the front, so browsers start
playing while the file loads). ffmpeg writes to a hidden temporary file in the output
folder, which is renamed over ``output_path`` only once complete: a killed or failed
render leaves no partial MP4. Rendering is deterministic for a given photo and prompt.

It is CPU work of a few seconds: call it from a background task or a thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pathlib
import re
import subprocess
import tempfile
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont, ImageOps

from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from prettyscore.video.engines.base import VideoInfo, clamp_duration

log = logging.getLogger(__name__)

FaceBox = tuple[int, int, int, int]
FaceLocator = Callable[[np.ndarray], FaceBox | None]

WIDTH = 1280
HEIGHT = 720
FPS = 24
ZOOM_END = 1.4  # the last frame shows 1/1.4 of the canvas; the canvas is 1.4× the frame
ZOOM_END_NO_FACE = 1.2
FACE_Y_IN_FRAME = 0.42  # the face ends a little above the middle (the caption is below)
FADE_SECONDS = 0.4
BACKGROUND_DARKEN = 0.45
CAPTION_MAX_LINES = 3
CAPTION_MAX_CHARS = 200
CAPTION_BAND_ALPHA = 0.55
RENDER_TIMEOUT_SECONDS = 120.0


def default_face_locator(image: np.ndarray) -> FaceBox | None:
    """The face box the scoring analysis finds, or ``None`` when it finds no usable face."""
    from prettyscore.analysis import analyse_face

    try:
        box = analyse_face(image).face_box
    except DomainError:
        return None
    except Exception:  # the face only steers the camera: never fail a video over it
        log.warning("face analysis failed while framing a video", exc_info=True)
        return None
    if box is None:
        return None
    x, y, w, h = (int(v) for v in box)
    return (x, y, w, h) if w > 0 and h > 0 else None


class LocalVideoEngine:
    """Ken Burns zoom on the face with an optional caption, encoded by ffmpeg (libx264)."""

    name = "local"

    def __init__(
        self,
        *,
        width: int = WIDTH,
        height: int = HEIGHT,
        fps: int = FPS,
        timeout_seconds: float = RENDER_TIMEOUT_SECONDS,
        face_locator: FaceLocator | None = None,
        ffmpeg_exe: str | None = None,
    ):
        if width % 2 or height % 2:
            raise ValueError("yuv420p needs an even width and height")
        self.width = width
        self.height = height
        self.fps = fps
        self.timeout_seconds = timeout_seconds
        self.face_locator = face_locator or default_face_locator
        self._ffmpeg_exe = ffmpeg_exe

    # -- public -------------------------------------------------------------------------

    def render(
        self,
        image: Image.Image,
        *,
        prompt: str | None,
        duration_seconds: int,
        output_path: pathlib.Path,
    ) -> VideoInfo:
        output_path = pathlib.Path(output_path)
        seconds = clamp_duration(duration_seconds)
        frame_count = seconds * self.fps
        temp_path = output_path.with_name(f".{output_path.name}.{uuid.uuid4().hex[:12]}.part")
        try:
            plan = self._plan(image, prompt)
            self._encode(plan, frame_count, temp_path)
            os.replace(temp_path, output_path)
            size = output_path.stat().st_size
        except DomainError:
            raise
        except Exception as exc:
            log.warning("local video render failed: %s", exc, exc_info=True)
            raise DomainError(messages.VIDEO_GENERATION_FAILED, code="video_failed") from exc
        finally:
            _remove(temp_path)  # gone already after the rename; a partial file otherwise
        return VideoInfo(
            path=output_path,
            duration_seconds=frame_count / self.fps,
            width=self.width,
            height=self.height,
            fps=self.fps,
            size_bytes=size,
        )

    # -- planning: everything that does not change from frame to frame ------------------

    def _plan(self, image: Image.Image, prompt: str | None) -> _Plan:
        rgb = np.asarray(ImageOps.exif_transpose(image).convert("RGB"))
        if rgb.ndim != 3 or rgb.shape[0] < 2 or rgb.shape[1] < 2:
            raise ValueError("image too small")
        canvas_w = _even(self.width * ZOOM_END)
        canvas_h = _even(self.height * ZOOM_END)
        h, w = rgb.shape[:2]

        # Analyse the photo at no more than the size it will have on the canvas.
        fit = min(canvas_w / w, canvas_h / h)
        analysed = rgb
        if fit < 1:
            analysed = cv2.resize(
                rgb, (max(1, round(w * fit)), max(1, round(h * fit))), interpolation=cv2.INTER_AREA
            )
        face = self.face_locator(np.ascontiguousarray(analysed))

        fg_w, fg_h = max(1, round(w * fit)), max(1, round(h * fit))
        if analysed.shape[1] == fg_w and analysed.shape[0] == fg_h:
            foreground = analysed
        else:
            foreground = cv2.resize(rgb, (fg_w, fg_h), interpolation=cv2.INTER_CUBIC)
        canvas = _background(rgb, canvas_w, canvas_h)
        ox, oy = (canvas_w - fg_w) // 2, (canvas_h - fg_h) // 2
        canvas[oy : oy + fg_h, ox : ox + fg_w] = foreground

        if face is not None:
            scale = fg_w / analysed.shape[1]
            fx, fy, fw, fh = face
            target = (ox + (fx + fw / 2) * scale, oy + (fy + fh / 2) * scale)
            zoom_end = ZOOM_END
            face_y = FACE_Y_IN_FRAME
        else:
            target = (canvas_w / 2, canvas_h / 2)
            zoom_end = ZOOM_END_NO_FACE
            face_y = 0.5
        caption = _caption_band(prompt, self.width, self.height)
        return _Plan(canvas, target, zoom_end, face_y, caption)

    # -- frames ---------------------------------------------------------------------------

    def _frames(self, plan: _Plan, frame_count: int):
        canvas_h, canvas_w = plan.canvas.shape[:2]
        fade_frames = max(1, round(FADE_SECONDS * self.fps))
        out = np.empty((self.height, self.width, 3), np.uint8)
        for i in range(frame_count):
            p = i / max(1, frame_count - 1)
            ease = p * p * (3 - 2 * p)
            zoom = 1 + (plan.zoom_end - 1) * ease
            view_w, view_h = canvas_w / zoom, canvas_h / zoom
            # Where the face should sit in the view at the end: a little above the middle.
            tx = plan.target[0]
            ty = plan.target[1] + (0.5 - plan.face_y) * view_h
            cx = canvas_w / 2 + (tx - canvas_w / 2) * ease
            cy = canvas_h / 2 + (ty - canvas_h / 2) * ease
            cx = min(max(cx, view_w / 2), canvas_w - view_w / 2)
            cy = min(max(cy, view_h / 2), canvas_h - view_h / 2)
            s = view_w / self.width  # canvas pixels per output pixel
            x0, y0 = cx - view_w / 2, cy - view_h / 2
            matrix = np.array([[1 / s, 0, -x0 / s], [0, 1 / s, -y0 / s]], np.float64)
            cv2.warpAffine(
                plan.canvas,
                matrix,
                (self.width, self.height),
                dst=out,
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
            if plan.caption is not None:
                top, alpha, premultiplied = plan.caption
                band = out[top : top + alpha.shape[0]]
                band[:] = (band * (1 - alpha) + premultiplied + 0.5).astype(np.uint8)
            fade = min(1.0, min(i + 1, frame_count - i) / (fade_frames + 1))
            if fade < 1:
                cv2.convertScaleAbs(out, dst=out, alpha=fade)
            yield out

    # -- encoding ---------------------------------------------------------------------------

    def _ffmpeg(self) -> str:
        if self._ffmpeg_exe is None:
            import imageio_ffmpeg

            self._ffmpeg_exe = imageio_ffmpeg.get_ffmpeg_exe()
        return self._ffmpeg_exe

    def _encode(self, plan: _Plan, frame_count: int, temp_path: pathlib.Path) -> None:
        command = [
            self._ffmpeg(),
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-s",
            f"{self.width}x{self.height}",
            "-r",
            str(self.fps),
            "-i",
            "-",
            "-an",
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-crf",
            "23",
            "-pix_fmt",
            "yuv420p",
            "-movflags",
            "+faststart",
            "-f",
            "mp4",
            str(temp_path),
        ]
        deadline = time.monotonic() + self.timeout_seconds
        with tempfile.TemporaryFile() as stderr:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},  # no proxies etc.
            )
            timed_out = threading.Event()

            def kill() -> None:
                timed_out.set()
                with contextlib.suppress(OSError):
                    process.kill()

            watchdog = threading.Timer(self.timeout_seconds, kill)
            watchdog.daemon = True
            watchdog.start()
            try:
                assert process.stdin is not None
                try:
                    for frame in self._frames(plan, frame_count):
                        process.stdin.write(frame.data)
                finally:
                    with contextlib.suppress(OSError):
                        process.stdin.close()
                code = process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except BaseException:
                with contextlib.suppress(OSError):
                    process.kill()
                process.wait()
                stderr.seek(0)
                tail = stderr.read()[-2000:].decode("utf-8", "replace")
                if timed_out.is_set():
                    raise RuntimeError(f"ffmpeg timed out: {tail}") from None
                raise
            finally:
                watchdog.cancel()
            if code != 0 or timed_out.is_set():
                stderr.seek(0)
                tail = stderr.read()[-2000:].decode("utf-8", "replace")
                raise RuntimeError(f"ffmpeg exited with {code}: {tail.strip()}")
        if not temp_path.exists() or temp_path.stat().st_size == 0:
            raise RuntimeError("ffmpeg wrote no file")


class _Plan:
    __slots__ = ("canvas", "target", "zoom_end", "face_y", "caption")

    def __init__(self, canvas, target, zoom_end, face_y, caption):
        self.canvas = canvas
        self.target = target
        self.zoom_end = zoom_end
        self.face_y = face_y
        self.caption = caption


def _even(value: float) -> int:
    return int(round(value / 2)) * 2


def _remove(path: pathlib.Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _background(rgb: np.ndarray, width: int, height: int) -> np.ndarray:
    """The photo covering the whole canvas, blurred and darkened (hidden when it fits)."""
    h, w = rgb.shape[:2]
    cover = max(width / w, height / h)
    # Blur a small copy: cheap, and as soft as a large blur on the full size.
    small_w, small_h = max(2, width // 16), max(2, height // 16)
    crop_w, crop_h = min(w, round(width / cover)), min(h, round(height / cover))
    x, y = (w - crop_w) // 2, (h - crop_h) // 2
    crop = rgb[y : y + crop_h, x : x + crop_w]
    small = cv2.resize(crop, (small_w, small_h), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 2.0)
    big = cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
    return cv2.convertScaleAbs(big, alpha=BACKGROUND_DARKEN)


_EMOJI_JOINERS = re.compile("[\u200d\u20e3\ufe00-\ufe0f]")


def caption_text(prompt: str | None) -> str:
    """The prompt as drawn: emoji and control characters dropped, whitespace collapsed.

    The default prompt ('Transform this portrait into a dynamic video') is an instruction,
    not a caption: it gives no caption, like an empty prompt.
    """
    if not prompt:
        return ""
    text = _EMOJI_JOINERS.sub("", prompt)
    text = "".join(
        ch
        for ch in text
        if ch.isspace()
        or (ord(ch) <= 0xFFFF and unicodedata.category(ch) not in ("So", "Cs", "Co", "Cn", "Cc"))
    )
    text = " ".join(text.split())
    if text.casefold() == messages.VIDEO_DEFAULT_PROMPT.casefold():
        return ""
    if len(text) > CAPTION_MAX_CHARS:
        text = text[: CAPTION_MAX_CHARS - 3].rstrip() + "..."
    return text


def _wrap(text: str, font: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        while font.getlength(word) > max_width and len(word) > 1:  # one very long word
            cut = len(word)
            while cut > 1 and font.getlength(word[:cut]) > max_width:
                cut -= 1
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:cut])
            word = word[cut:]
        candidate = f"{line} {word}" if line else word
        if font.getlength(candidate) <= max_width:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    if len(lines) > CAPTION_MAX_LINES:
        last = lines[CAPTION_MAX_LINES - 1]
        while last and font.getlength(last + "...") > max_width:
            last = last[:-1]
        lines = lines[: CAPTION_MAX_LINES - 1] + [last.rstrip() + "..."]
    return lines


def _caption_band(
    prompt: str | None, width: int, height: int
) -> tuple[int, np.ndarray, np.ndarray] | None:
    """(top row, alpha H×W×1, premultiplied colour H×W×3) of the caption band, or None."""
    text = caption_text(prompt)
    if not text:
        return None
    size = max(12, round(height * 0.047))
    font = ImageFont.load_default(size=size)
    lines = _wrap(text, font, width * 0.84)
    if not lines:
        return None
    line_height = round(size * 1.3)
    padding = round(size * 0.6)
    band_h = len(lines) * line_height + 2 * padding
    top = height - band_h - round(height * 0.06)
    band = Image.new("RGBA", (width, band_h), (0, 0, 0, round(255 * CAPTION_BAND_ALPHA)))
    draw = ImageDraw.Draw(band)
    for n, line in enumerate(lines):
        draw.text(
            (width / 2, padding + n * line_height + line_height / 2),
            line,
            font=font,
            fill=(255, 255, 255, 255),
            anchor="mm",
        )
    rgba = np.asarray(band).astype(np.float32)
    alpha = rgba[:, :, 3:4] / 255.0
    return top, alpha, rgba[:, :, :3] * alpha
