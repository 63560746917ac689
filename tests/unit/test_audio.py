"""Audio clips and playback: real playback through ALSA's null device (conftest points
ALSA_CONFIG_PATH at tests/alsa-null.conf), stop, and the paths where PortAudio, the
sounddevice package or an output device is missing, each ending in one message."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from memscope.errors import MediaError
from memscope.media import audio
from memscope.media.audio import Player, envelope, load_clip

REPO = Path(__file__).resolve().parents[2]
DEMO_VOICE = (
    REPO
    / "fixtures"
    / "cuemem"
    / "data"
    / "event"
    / "voice_mixed_000_002"
    / "0-2-0"
    / "2-0_turn0.wav"
)


def write_wav(path: Path, samples: np.ndarray, rate: int = 8000, channels: int = 1) -> Path:
    pcm = np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(channels)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(pcm.tobytes())
    return path


def tone(seconds: float, rate: int = 8000, hz: float = 440.0) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return 0.3 * np.sin(2 * np.pi * hz * t)


def playback_or_skip() -> None:
    """Skip only when the PortAudio library itself is absent (the set-up installs it)."""
    ok, why = Player().available()
    if not ok and "PortAudio library was not found" in why:
        pytest.skip(why)
    assert ok, why


def test_clip_duration_and_envelope(tmp_path: Path) -> None:
    # Half a second of silence, then half a second of a tone at amplitude 0.3.
    samples = np.concatenate([np.zeros(4000), tone(0.5)])
    clip = load_clip(write_wav(tmp_path / "half.wav", samples))
    assert (clip.samplerate, clip.channels, clip.frames, clip.duration_s) == (8000, 1, 8000, 1.0)
    assert clip.envelope(4) == [0.0, 0.0, 1.0, 1.0]
    assert len(clip.envelope(50)) == 50 and max(clip.envelope(50)) == 1.0
    assert envelope(np.zeros(10), 3) == [0.0, 0.0, 0.0]
    assert envelope(np.array([0.5]), 3) == [
        0.0,
        0.0,
        1.0,
    ]  # shorter than the width: empty slices are 0
    assert clip.envelope(0) == []


def test_stereo_clips_keep_both_channels_for_playback(tmp_path: Path) -> None:
    frames = np.stack([tone(0.2), np.zeros(1600)], axis=1).reshape(-1)
    clip = load_clip(write_wav(tmp_path / "stereo.wav", frames, channels=2))
    assert clip.channels == 2 and clip.playable.shape == (1600, 2) and clip.samples.shape == (1600,)


def test_the_demo_voice_message_is_a_short_16k_clip() -> None:
    clip = load_clip(DEMO_VOICE)
    assert clip.samplerate == 16000 and 1.5 < clip.duration_s < 2.5
    assert sum(value > 0.5 for value in clip.envelope(40)) > 5  # syllables, not a flat line


def test_a_wav_that_is_not_audio_is_one_message(tmp_path: Path) -> None:
    fake = tmp_path / "voice.wav"
    fake.write_bytes(b"RIFF....WAVEfmt this is not really audio" * 4)
    with pytest.raises(MediaError) as caught:
        load_clip(fake)
    message = str(caught.value)
    assert message.startswith("not an audio file memscope can read (")
    assert str(fake) in message and "re-export it" in message and message.count("\n") == 1
    started, why = Player().play(fake)  # the player reports it instead of raising
    assert not started and why == message
    with pytest.raises(MediaError, match="does not exist"):
        load_clip(tmp_path / "missing.wav")


def test_real_playback_through_the_null_device_runs_to_completion(tmp_path: Path) -> None:
    playback_or_skip()
    ended: list[str] = []
    player = Player(on_finished=ended.append)
    started, message = player.play(write_wav(tmp_path / "short.wav", tone(0.3)))
    assert started, message
    assert message == "playing short.wav (0.3 s)"
    assert player.wait(timeout=10)
    assert not player.is_playing
    assert player.outcome == "finished" and ended == ["finished"]
    assert player.position_s == pytest.approx(0.3)
    player.close()


def test_stop_ends_playback_early(tmp_path: Path) -> None:
    playback_or_skip()
    # ALSA's null device takes sound as fast as it is given, so the clip is long enough
    # (three minutes) that stop() always comes first.
    long_clip = write_wav(tmp_path / "long.wav", np.zeros(8000 * 180), rate=8000)
    player = Player()
    started, message = player.play(long_clip)
    assert started, message
    player.stop()
    assert not player.is_playing and player.outcome == "stopped"
    assert player.position_s < 180
    player.stop()  # idempotent
    started, _ = player.toggle(long_clip)  # p starts it again …
    assert started and player.is_playing
    assert player.toggle(long_clip) == (True, "stopped")  # … and p stops it
    assert not player.is_playing


def test_missing_portaudio_says_why_and_how_to_fix_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_portaudio() -> None:
        raise OSError("PortAudio library not found")

    monkeypatch.setattr(audio, "_import_sounddevice", no_portaudio)
    player = Player()
    ok, why = player.available()
    assert not ok
    assert why.startswith("Audio playback is unavailable: the PortAudio library was not found")
    assert "apt-get install libportaudio2" in why and "restart memscope" in why
    clip = write_wav(tmp_path / "fine.wav", tone(0.1))
    assert player.play(clip) == (False, why)  # nothing raises into the caller
    assert load_clip(clip).duration_s == pytest.approx(0.1)  # the waveform still works
    assert not player.is_playing
    player.stop()


def test_missing_sounddevice_package_and_missing_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_package() -> None:
        raise ImportError("No module named 'sounddevice'")

    monkeypatch.setattr(audio, "_import_sounddevice", no_package)
    ok, why = Player().available()
    assert (
        not ok
        and "sounddevice package is not installed" in why
        and "pip install sounddevice" in why
    )

    class NoDevice:
        @staticmethod
        def query_devices(kind: str) -> dict:
            raise ValueError("No output device matching ''")

    monkeypatch.setattr(audio, "_import_sounddevice", lambda: NoDevice)
    ok, why = Player().available()
    assert not ok and why.startswith("Audio playback is unavailable: no audio output device")
    assert "ALSA_CONFIG_PATH" in why
