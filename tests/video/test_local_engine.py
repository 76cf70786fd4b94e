"""The local video engine renders a real, browser-ready H.264 MP4 from a real photo.

Each render is made once per module (a few seconds each) and inspected from the outside:
ffmpeg's own report of the file, the MP4 atoms, and frames decoded by OpenCV.
"""

from __future__ import annotations

import pathlib
import re
import stat
import subprocess

import cv2
import imageio_ffmpeg
import numpy as np
import pytest
from PIL import Image

from prettyscore.analysis.face import analyse_face
from prettyscore.core import messages
from prettyscore.core.errors import DomainError
from prettyscore.video.engines import VideoInfo, clamp_duration, engine_named
from prettyscore.video.engines.local import LocalVideoEngine, caption_text
from tests.fixtures import photos

PROMPT = "Walking on the moon with a smile"
FPS = 24
FADE_FRAMES = 10  # 0.4 s at 24 fps: frames FADE_FRAMES..N-FADE_FRAMES-1 are at full light


def render(tmp: pathlib.Path, image: np.ndarray, prompt: str | None, seconds: int = 5):
    path = tmp / "clip.mp4"
    info = LocalVideoEngine().render(
        Image.fromarray(image), prompt=prompt, duration_seconds=seconds, output_path=path
    )
    return info


def probe(path: pathlib.Path) -> str:
    """ffmpeg's description of the file (it prints it on stderr and exits 1: no output)."""
    result = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return result.stderr


def duration_of(report: str) -> float:
    match = re.search(r"Duration: (\d+):(\d+):(\d+(?:\.\d+)?)", report)
    assert match, report
    hours, minutes, seconds = match.groups()
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def top_level_atoms(path: pathlib.Path) -> list[str]:
    data = path.read_bytes()
    atoms, offset = [], 0
    while offset + 8 <= len(data):
        size = int.from_bytes(data[offset : offset + 4], "big")
        atoms.append(data[offset + 4 : offset + 8].decode("latin-1"))
        if size == 1:
            size = int.from_bytes(data[offset + 8 : offset + 16], "big")
        if size < 8:
            break
        offset += size
    return atoms


def frames_of(path: pathlib.Path) -> list[np.ndarray]:
    """Every frame, decoded by OpenCV's bundled FFmpeg, as RGB."""
    capture = cv2.VideoCapture(str(path))
    assert capture.isOpened()
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
    capture.release()
    return frames


@pytest.fixture(scope="module")
def astronaut_clip(tmp_path_factory) -> tuple[VideoInfo, list[np.ndarray]]:
    info = render(tmp_path_factory.mktemp("plain"), photos.astronaut(), None)
    return info, frames_of(info.path)


@pytest.fixture(scope="module")
def captioned_clip(tmp_path_factory) -> tuple[VideoInfo, list[np.ndarray]]:
    info = render(tmp_path_factory.mktemp("caption"), photos.astronaut(), PROMPT)
    return info, frames_of(info.path)


def test_the_file_is_a_browser_ready_h264_mp4_of_about_five_seconds(astronaut_clip):
    info, frames = astronaut_clip
    report = probe(info.path)
    assert "Video: h264" in report
    assert "yuv420p" in report
    assert "1280x720" in report
    assert re.search(r"\b24 fps\b", report)
    assert duration_of(report) == pytest.approx(5.0, abs=0.1)
    assert len(frames) == 5 * FPS
    assert frames[0].shape == (720, 1280, 3)
    # +faststart: the index (moov) comes before the media (mdat), so playback starts early.
    atoms = top_level_atoms(info.path)
    assert atoms.index("moov") < atoms.index("mdat")
    assert info == VideoInfo(
        path=info.path,
        duration_seconds=5.0,
        width=1280,
        height=720,
        fps=24,
        size_bytes=info.path.stat().st_size,
    )
    assert 20_000 < info.size_bytes < 5_000_000
    # Nothing else is left in the folder (the temporary file was renamed).
    assert [p.name for p in info.path.parent.iterdir()] == ["clip.mp4"]


def test_the_camera_moves_closer_to_the_face(astronaut_clip):
    _, frames = astronaut_clip
    first, last = frames[FADE_FRAMES + 1], frames[-FADE_FRAMES - 2]
    assert np.abs(first.astype(int) - last.astype(int)).mean() > 10
    start_box = analyse_face(first).face_box
    end_box = analyse_face(last).face_box
    assert end_box[2] > start_box[2] * 1.2  # the face is larger in the last frame
    assert end_box[3] > start_box[3] * 1.2
    # ... and it is framed near the middle, across.
    assert abs(end_box[0] + end_box[2] / 2 - 640) < 160


def test_the_clip_fades_in_and_out(astronaut_clip):
    _, frames = astronaut_clip
    middle = frames[len(frames) // 2].mean()
    assert frames[0].mean() < middle * 0.25
    assert frames[-1].mean() < middle * 0.25
    assert frames[FADE_FRAMES + 1].mean() > middle * 0.8


def test_a_prompt_is_drawn_as_a_caption_band_in_the_bottom_third(astronaut_clip, captioned_clip):
    _, plain = astronaut_clip
    _, captioned = captioned_clip
    for index in (FADE_FRAMES + 1, len(plain) // 2, len(plain) - FADE_FRAMES - 2):
        a, b = plain[index].astype(int), captioned[index].astype(int)
        bottom = np.abs(a[480:] - b[480:]).mean()
        top = np.abs(a[:400] - b[:400]).mean()
        assert bottom > 15, bottom
        assert top < 2, top
        # The band darkens what is behind it; the text inside it is white.
        band = captioned[index][520:680]
        assert band.mean() < plain[index][520:680].mean()
        assert (band.min(axis=2) > 220).sum() > 500


def test_a_photo_without_a_face_still_renders_with_a_centred_move(tmp_path):
    info = render(tmp_path, photos.coffee(), None)
    frames = frames_of(info.path)
    assert len(frames) == 120
    first, last = frames[FADE_FRAMES + 1], frames[-FADE_FRAMES - 2]
    assert np.abs(first.astype(int) - last.astype(int)).mean() > 5

    # Centred: the last frame is a zoom about the middle of the first (1 → 1.2, eased).
    def zoom(index: int) -> float:
        p = index / (len(frames) - 1)
        return 1 + 0.2 * p * p * (3 - 2 * p)

    ratio = zoom(len(frames) - FADE_FRAMES - 2) / zoom(FADE_FRAMES + 1)
    half = 60
    patch = first[360 - half : 360 + half, 640 - half : 640 + half]
    big = round(2 * half * ratio)
    zoomed = last[360 - big // 2 : 360 - big // 2 + big, 640 - big // 2 : 640 - big // 2 + big]
    enlarged = cv2.resize(patch, (big, big), interpolation=cv2.INTER_LINEAR)
    same = np.abs(enlarged.astype(int) - zoomed.astype(int)).mean()
    shifted = last[
        360 - big // 2 + 40 : 360 - big // 2 + 40 + big, 640 - big // 2 : 640 - big // 2 + big
    ]
    assert same < 10, same
    assert same < np.abs(enlarged.astype(int) - shifted.astype(int)).mean()


def test_duration_is_clamped_to_one_to_ten_seconds(tmp_path):
    assert clamp_duration(None) == 5
    assert clamp_duration(0) == 1
    assert clamp_duration(-3) == 1
    assert clamp_duration(7) == 7
    assert clamp_duration(99) == 10
    info = render(tmp_path, photos.coffee(), None, seconds=0)
    assert info.duration_seconds == 1.0
    assert duration_of(probe(info.path)) == pytest.approx(1.0, abs=0.1)
    assert len(frames_of(info.path)) == 24


def test_caption_text_drops_emoji_and_the_default_prompt():
    assert caption_text(None) == ""
    assert caption_text("   ") == ""
    assert caption_text("🚀✨") == ""
    assert caption_text("Moon  walk 🚀👩‍🚀 tonight ✨") == "Moon walk tonight"
    assert caption_text(messages.VIDEO_DEFAULT_PROMPT) == ""
    assert len(caption_text("word " * 200)) <= 200


def test_the_engine_is_chosen_by_name():
    assert engine_named("local").name == "local"
    with pytest.raises(ValueError):
        engine_named("nope")


def assert_failed(excinfo) -> None:
    assert excinfo.value.message == messages.VIDEO_GENERATION_FAILED


def test_an_unwritable_output_folder_fails_cleanly(tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    with pytest.raises(DomainError) as excinfo:
        render(not_a_folder, photos.coffee(), None, seconds=1)
    assert_failed(excinfo)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def fake_ffmpeg(tmp_path: pathlib.Path, body: str) -> str:
    script = tmp_path / "fake-ffmpeg"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_a_failing_encoder_leaves_no_partial_file_and_keeps_the_old_one(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "clip.mp4").write_bytes(b"the previous video")
    # Writes half a file where it was told to, then fails.
    exe = fake_ffmpeg(tmp_path, 'for last; do :; done\necho partial > "$last"\nexit 1')
    engine = LocalVideoEngine(ffmpeg_exe=exe)
    with pytest.raises(DomainError) as excinfo:
        engine.render(
            Image.fromarray(photos.coffee()),
            prompt=None,
            duration_seconds=1,
            output_path=out / "clip.mp4",
        )
    assert_failed(excinfo)
    assert sorted(p.name for p in out.iterdir()) == ["clip.mp4"]
    assert (out / "clip.mp4").read_bytes() == b"the previous video"


def test_a_stuck_encoder_times_out(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    exe = fake_ffmpeg(tmp_path, 'for last; do :; done\necho partial > "$last"\nexec sleep 30')
    engine = LocalVideoEngine(ffmpeg_exe=exe, timeout_seconds=1.0)
    with pytest.raises(DomainError) as excinfo:
        engine.render(
            Image.fromarray(photos.coffee()),
            prompt=None,
            duration_seconds=3,
            output_path=out / "clip.mp4",
        )
    assert_failed(excinfo)
    assert list(out.iterdir()) == []


def test_rendering_is_deterministic_framing(tmp_path):
    engine = LocalVideoEngine()
    plan_a = engine._plan(Image.fromarray(photos.astronaut()), PROMPT)
    plan_b = engine._plan(Image.fromarray(photos.astronaut()), PROMPT)
    assert plan_a.target == plan_b.target
    frames_a = [f.copy() for f in engine._frames(plan_a, 24)]
    frames_b = [f.copy() for f in engine._frames(plan_b, 24)]
    assert all(np.array_equal(a, b) for a, b in zip(frames_a, frames_b, strict=True))
