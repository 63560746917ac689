"""Audio clips for the app's voice-message view: load, measure, draw, play and stop.

The whole API (used by the Textual app; nothing here knows Textual):

- :func:`load_clip` reads a sound file (WAV, FLAC, OGG … anything libsndfile reads) into an
  :class:`AudioClip`: ``duration_s``, ``samplerate``, ``channels`` and
  ``envelope(width)``, a list of ``width`` peak levels in [0, 1] for a waveform sparkline.
  A file that is not audio raises :class:`~memscope.errors.MediaError` with one message.
- :class:`Player` plays one clip at a time without blocking: ``play(path)`` returns at
  once with ``(started, message)``, ``stop()`` ends playback, ``is_playing`` says whether
  sound is going out, ``toggle(path)`` is the ``p`` key, ``wait(timeout)`` blocks until the
  clip ends (tests, scripts). ``available()`` returns ``(ok, message)``: when PortAudio or
  an output device is missing the message says why and how to fix it. No method of
  ``Player`` raises: a failure comes back as ``(False, message)`` so the caller's UI goes on.

soundfile and sounddevice (PortAudio) are imported only when a clip is loaded or played,
so importing this module costs nothing and works on a machine without audio.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Protocol

import numpy as np

from memscope.errors import MediaError

MAX_SECONDS = 600.0
"""Longest stretch of a file that is loaded (voice messages last seconds)."""
PORTAUDIO_FIX = (
    "Install the PortAudio library (Debian/Ubuntu: sudo apt-get install libportaudio2; "
    "Fedora: sudo dnf install portaudio; macOS: brew install portaudio), then restart memscope."
)
DEVICE_FIX = (
    "Connect or enable an audio output (check `aplay -l` or your sound settings). On a "
    "machine without sound hardware, point ALSA at its null device to test "
    "(ALSA_CONFIG_PATH=tests/alsa-null.conf)."
)
PACKAGE_FIX = "Install the Python package: pip install sounddevice (memscope's set-up does this)."


@dataclass(frozen=True)
class AudioClip:
    """A decoded sound file: mono samples in [-1, 1] and what was read.

    Attributes:
        path: The file.
        samplerate: Frames per second.
        channels: Channels in the file (``samples`` is their mean).
        samples: ``(frames,)`` float32 mono samples.
        truncated: Whether the file is longer than :data:`MAX_SECONDS` and was cut.
    """

    path: Path
    samplerate: int
    channels: int
    samples: np.ndarray
    truncated: bool = False
    playable: np.ndarray | None = None
    """``(frames, 1 or 2)`` float32 samples as they are played (stereo kept)."""

    @property
    def frames(self) -> int:
        """Number of sample frames read."""
        return int(self.samples.shape[0])

    @property
    def duration_s(self) -> float:
        """Length in seconds (of what was read)."""
        return self.frames / self.samplerate if self.samplerate else 0.0

    def envelope(self, width: int) -> list[float]:
        """``width`` peak levels in [0, 1], one per equal slice of the clip, for a sparkline.

        Levels are relative to the clip's loudest sample, so a quiet recording still shows
        its shape; silence gives zeros.
        """
        return envelope(self.samples, width)


def envelope(samples: np.ndarray, width: int) -> list[float]:
    """Peak absolute level of each of ``width`` equal slices of ``samples``, scaled to [0, 1]."""
    if width <= 0:
        return []
    values = np.abs(np.asarray(samples, dtype=np.float32).reshape(-1))
    if values.size == 0:
        return [0.0] * width
    # Slice boundaries in samples; a slice may be empty when the clip is shorter than width.
    edges = np.linspace(0, values.size, width + 1).astype(np.int64)
    peaks = np.zeros(width, dtype=np.float32)
    nonempty = edges[1:] > edges[:-1]
    peaks[nonempty] = np.maximum.reduceat(values, edges[:-1][nonempty])
    if not nonempty.all():
        # reduceat at an index equal to the next start gives that sample; keep empty slices at 0.
        peaks[~nonempty] = 0.0
    loudest = float(peaks.max())
    if loudest <= 0.0 or not math.isfinite(loudest):
        return [0.0] * width
    return [round(float(v) / loudest, 4) for v in peaks]


def _import_soundfile() -> ModuleType:
    import soundfile

    module: ModuleType = soundfile  # it ships no types: the module is all mypy knows
    return module


def load_clip(path: Path | str) -> AudioClip:
    """Read a sound file.

    Raises:
        MediaError: when the file is missing, unreadable, not audio, or soundfile itself
            cannot be loaded — one message saying which and what to do.
    """
    path = Path(path)
    if not path.is_file():
        raise MediaError(
            "the audio file does not exist",
            where=str(path),
            fix="Check the dataset's voice folder.",
        )
    try:
        soundfile = _import_soundfile()
    except (ImportError, OSError) as exc:
        raise MediaError(
            f"cannot load the soundfile library to read audio: {exc}",
            where=str(path),
            fix="Install it: pip install soundfile (its wheels include libsndfile).",
        ) from None
    try:
        with soundfile.SoundFile(str(path)) as handle:
            samplerate = int(handle.samplerate)
            channels = int(handle.channels)
            limit = int(MAX_SECONDS * samplerate)
            data = handle.read(
                frames=min(handle.frames, limit) if handle.frames > 0 else limit,
                dtype="float32",
                always_2d=True,
            )
            truncated = handle.frames > limit
    except (
        RuntimeError,
        ValueError,
        TypeError,
        OSError,
    ) as exc:  # LibsndfileError is a RuntimeError
        detail = getattr(exc, "error_string", None) or str(exc) or type(exc).__name__
        raise MediaError(
            f"not an audio file memscope can read ({detail})",
            where=str(path),
            fix="Check that the file is a WAV (or FLAC/OGG) recording; re-export it if it is damaged.",
        ) from None
    if samplerate <= 0 or channels <= 0:
        raise MediaError("the audio file declares no sample rate or channels", where=str(path))
    playable = data if channels <= 2 else data.mean(axis=1, keepdims=True)
    return AudioClip(
        path=path,
        samplerate=samplerate,
        channels=channels,
        samples=data.mean(axis=1).astype(np.float32),
        truncated=truncated,
        playable=np.ascontiguousarray(playable, dtype=np.float32),
    )


def _import_sounddevice() -> ModuleType:
    import sounddevice

    module: ModuleType = sounddevice  # it ships no types: the module is all mypy knows
    return module


def audio_backend() -> tuple[ModuleType | None, str]:
    """``(sounddevice module, "")`` when playback can work, else ``(None, why and how to fix it)``."""
    try:
        sounddevice = _import_sounddevice()
    except ImportError:
        return (
            None,
            f"Audio playback is unavailable: the sounddevice package is not installed. {PACKAGE_FIX}",
        )
    except OSError as exc:
        # sounddevice raises OSError("PortAudio library not found") when libportaudio is missing.
        return (
            None,
            f"Audio playback is unavailable: the PortAudio library was not found ({exc}). {PORTAUDIO_FIX}",
        )
    try:
        device = sounddevice.query_devices(kind="output")
    except Exception as exc:  # PortAudioError, ValueError: no default output device
        return None, f"Audio playback is unavailable: no audio output device ({exc}). {DEVICE_FIX}"
    if not device or int(device.get("max_output_channels", 0)) < 1:
        return (
            None,
            f"Audio playback is unavailable: the default device has no output channels. {DEVICE_FIX}",
        )
    return sounddevice, ""


class _Stream(Protocol):
    """What the player calls on a sounddevice output stream (sounddevice ships no types)."""

    def start(self) -> None: ...

    def abort(self) -> None: ...

    def close(self) -> None: ...


class Player:
    """Plays one clip at a time in the background; never raises into the caller.

    Args:
        on_finished: Called (from the audio thread) with ``"finished"`` or ``"stopped"``
            whenever a clip ends; a front end posts a message from it.
    """

    def __init__(self, on_finished: Callable[[str], None] | None = None) -> None:
        self.on_finished = on_finished
        self._lock = threading.Lock()
        self._stream: _Stream | None = None
        self._done = threading.Event()
        self._done.set()
        self._position = 0
        self._clip: AudioClip | None = None
        self._stopping = False
        self.path: Path | None = None
        """The clip playing (or played last)."""
        self.outcome: str | None = None
        """How the last clip ended: ``"finished"``, ``"stopped"``, or None while playing."""

    def available(self) -> tuple[bool, str]:
        """``(True, "")`` when playback can work here, else ``(False, why and how to fix it)``."""
        backend, why = audio_backend()
        return backend is not None, why

    @property
    def is_playing(self) -> bool:
        """Whether a clip is playing now."""
        return not self._done.is_set()

    @property
    def position_s(self) -> float:
        """Seconds of the current (or last) clip sent to the device so far."""
        clip = self._clip
        return self._position / clip.samplerate if clip and clip.samplerate else 0.0

    def play(self, path: Path | str) -> tuple[bool, str]:
        """Start playing ``path`` (stopping any clip playing) and return at once.

        Returns:
            ``(True, "playing <name> (<duration>)")``, or ``(False, message)`` when the file
            is not audio or playback is unavailable (the message says why and what to do).
        """
        try:
            clip = load_clip(path)
        except MediaError as error:
            return False, error.message
        backend, why = audio_backend()
        if backend is None:
            return False, why
        self.stop()
        frames = clip.playable if clip.playable is not None else clip.samples[:, None]
        with self._lock:
            self._clip, self._position, self._stopping = clip, 0, False
            self.path, self.outcome = clip.path, None
            self._done.clear()
            try:
                stream = backend.OutputStream(
                    samplerate=clip.samplerate,
                    channels=int(frames.shape[1]),
                    dtype="float32",
                    callback=self._callback_for(frames, backend),
                    finished_callback=self._finished,
                )
                self._stream = stream
                stream.start()
            except Exception as exc:  # PortAudioError (busy device, unsupported rate), OSError
                self._stream = None
                self._done.set()
                self.outcome = "error"
                return (
                    False,
                    f"Cannot play {clip.path.name}: the audio device refused it ({exc}). {DEVICE_FIX}",
                )
        return True, f"playing {clip.path.name} ({clip.duration_s:.1f} s)"

    def _callback_for(self, frames: np.ndarray, backend: ModuleType) -> Callable[..., None]:
        total = frames.shape[0]

        def callback(outdata: np.ndarray, count: int, _time: object, _status: object) -> None:
            start = self._position
            chunk = frames[start : start + count]
            outdata[: len(chunk)] = chunk
            if len(chunk) < count:
                outdata[len(chunk) :] = 0
            self._position = start + len(chunk)
            if self._position >= total or self._stopping:
                raise backend.CallbackStop

        return callback

    def _finished(self) -> None:
        outcome = "stopped" if self._stopping else "finished"
        self.outcome = outcome
        self._done.set()
        if self.on_finished is not None:
            # A front end's handler runs on the audio thread; its failure must not end it.
            with contextlib.suppress(Exception):
                self.on_finished(outcome)

    def stop(self) -> None:
        """Stop the clip playing, if any, and release the device (no-op when idle)."""
        with self._lock:
            stream, self._stream = self._stream, None
            if stream is None:
                return
            self._stopping = not self._done.is_set()
        # A device that vanished mid-clip raises here; the stream is gone either way.
        with contextlib.suppress(Exception):
            stream.abort()
        with contextlib.suppress(Exception):
            stream.close()
        if not self._done.is_set():
            self.outcome = "stopped"
            self._done.set()

    def toggle(self, path: Path | str) -> tuple[bool, str]:
        """The ``p`` key: stop ``path`` if it is playing, else play it."""
        if self.is_playing and self.path is not None and Path(path) == self.path:
            self.stop()
            return True, "stopped"
        return self.play(path)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the clip ends; return whether it did within ``timeout`` seconds."""
        return self._done.wait(timeout)

    def close(self) -> None:
        """Stop playback and release the device (call when the app exits)."""
        self.stop()
