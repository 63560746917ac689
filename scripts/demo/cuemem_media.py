"""Media of the CUE-Mem demo: voice messages and scene images, synthesised deterministically.

Voice messages are speech-like signals (a voiced source whose harmonics are shaped by
moving vowel formants, cut into syllables, with consonant noise bursts) mixed with an
ambient sound (rain, café, birdsong with a barking dog, a train, a street) built from
shaped noise and tones. Nothing calls a speech synthesiser, so regeneration works on any
machine. Images are small Pillow drawings of a scene with a main subject and a small
*peripheral* object that the caption leaves out: the implicit cue CUE-Mem is about.
"""

from __future__ import annotations

import io
import wave

import numpy as np
from PIL import Image, ImageDraw

SAMPLE_RATE = 16_000
VOWELS = (
    (700, 1220, 2600),
    (300, 2300, 3000),
    (350, 800, 2400),
    (500, 1800, 2550),
    (450, 900, 2500),
)
"""(F1, F2, F3) in Hz of a, i, u, e, o."""
FORMANT_WIDTHS = (90.0, 120.0, 160.0)
FORMANT_GAINS = (1.0, 0.55, 0.25)


def _spectral_noise(
    rng: np.random.Generator, n: int, low: float, high: float, slope: float = 0.0
) -> np.ndarray:
    """Noise with energy between ``low`` and ``high`` Hz and a 1/f**slope tilt, unit RMS."""
    spectrum = rng.normal(size=n // 2 + 1) + 1j * rng.normal(size=n // 2 + 1)
    freqs = np.fft.rfftfreq(n, 1 / SAMPLE_RATE)
    gain = ((freqs >= low) & (freqs <= high)).astype(float)
    gain[1:] /= np.maximum(freqs[1:], 1.0) ** (slope / 2)
    gain[0] = 0.0
    signal = np.fft.irfft(spectrum * gain, n)
    return signal / (np.sqrt(np.mean(signal**2)) + 1e-12)


def _syllable_envelope(
    rng: np.random.Generator, n: int
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """An amplitude envelope of syllables with short gaps and one longer pause."""
    envelope = np.zeros(n)
    spans: list[tuple[int, int]] = []
    position = int(0.08 * SAMPLE_RATE)
    pause_at = n // 2
    paused = False
    while position < n - int(0.12 * SAMPLE_RATE):
        length = int(rng.uniform(0.12, 0.26) * SAMPLE_RATE)
        end = min(n, position + length)
        window = np.hanning(end - position) ** 0.6
        envelope[position:end] = np.maximum(envelope[position:end], window * rng.uniform(0.7, 1.0))
        spans.append((position, end))
        position = end + int(rng.uniform(0.02, 0.09) * SAMPLE_RATE)
        if not paused and position > pause_at:
            position += int(0.22 * SAMPLE_RATE)
            paused = True
    return envelope, spans


def speech_like(rng: np.random.Generator, seconds: float, f0: float) -> np.ndarray:
    """A voice-like utterance: harmonics of a gliding pitch through moving formants."""
    n = int(seconds * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    envelope, spans = _syllable_envelope(rng, n)
    pitch = f0 * (1 + 0.07 * np.sin(2 * np.pi * 0.8 * t + rng.uniform(0, 6)) - 0.12 * t / seconds)
    pitch *= 1 + 0.004 * rng.normal(size=n).cumsum() / np.sqrt(np.arange(1, n + 1))
    formants = np.zeros((3, n))
    choice = rng.integers(0, len(VOWELS), size=len(spans) + 1)
    for number, (start, end) in enumerate(spans):
        here, there = np.array(VOWELS[choice[number]]), np.array(VOWELS[choice[number + 1]])
        blend = np.linspace(0, 1, end - start)[None, :]
        formants[:, start:end] = here[:, None] * (1 - blend) + there[:, None] * blend
    filled = formants[0] > 0
    for row in range(3):
        formants[row, ~filled] = np.interp(
            np.flatnonzero(~filled), np.flatnonzero(filled), formants[row, filled]
        )
    phase = 2 * np.pi * np.cumsum(pitch) / SAMPLE_RATE
    voice = np.zeros(n)
    for k in range(1, int(3800 / f0) + 1):
        frequency = k * pitch
        amplitude = sum(
            gain * np.exp(-(((frequency - formants[row]) / width) ** 2))
            for row, (width, gain) in enumerate(zip(FORMANT_WIDTHS, FORMANT_GAINS, strict=False))
        )
        voice += amplitude * np.sin(k * phase) / k**0.3
    consonants = np.zeros(n)
    hiss = _spectral_noise(rng, n, 2500, 7000)
    for start, _end in spans:
        burst = min(n - start, int(0.035 * SAMPLE_RATE))
        consonants[start : start + burst] = (
            hiss[start : start + burst] * np.linspace(0.5, 0, burst) * rng.uniform(0, 1)
        )
    signal = voice * envelope + 0.25 * consonants * np.max(np.abs(voice))
    return signal / (np.sqrt(np.mean(signal**2)) + 1e-12)


def _chirp(seconds: float, start_hz: float, end_hz: float) -> np.ndarray:
    n = int(seconds * SAMPLE_RATE)
    frequency = np.linspace(start_hz, end_hz, n)
    return np.sin(2 * np.pi * np.cumsum(frequency) / SAMPLE_RATE) * np.hanning(n)


def _place(target: np.ndarray, sound: np.ndarray, at: int, gain: float) -> None:
    end = min(target.size, at + sound.size)
    if at < end:
        target[at:end] += gain * sound[: end - at]


def ambient(kind: str, rng: np.random.Generator, seconds: float) -> np.ndarray:
    """A background sound of unit RMS: rain, cafe, birds_dog, train or street."""
    n = int(seconds * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    if kind == "rain":
        sound = _spectral_noise(rng, n, 300, 7000, slope=0.6)
        for at in rng.integers(0, n, size=int(40 * seconds)):
            drop = rng.normal(size=200) * np.exp(-np.arange(200) / 25)
            _place(sound, drop, int(at), 1.5)
    elif kind == "cafe":
        sound = 0.6 * _spectral_noise(rng, n, 150, 3000, slope=1.0)
        for f0 in (150.0, 210.0):
            sound += 0.3 * speech_like(rng, seconds, f0)
        hiss = _spectral_noise(rng, n, 3000, 7500) * (t > 0.4 * seconds) * (t < 0.8 * seconds)
        sound += 0.7 * hiss
        for at in rng.integers(0, n - 3000, size=3):
            ping = np.sin(
                2 * np.pi * rng.uniform(2400, 3400) * np.arange(3000) / SAMPLE_RATE
            ) * np.exp(-np.arange(3000) / 500)
            _place(sound, ping, int(at), 1.2)
    elif kind == "birds_dog":
        sound = 0.3 * _spectral_noise(rng, n, 100, 2000, slope=1.0)
        for at in np.arange(0.1, seconds - 0.2, 0.35):
            for repeat in range(3):
                chirp = _chirp(0.06, rng.uniform(2600, 3200), rng.uniform(3800, 4600))
                _place(sound, chirp, int((at + 0.08 * repeat) * SAMPLE_RATE), 1.3)
        bark_n = int(0.16 * SAMPLE_RATE)
        tb = np.arange(bark_n) / SAMPLE_RATE
        bark = sum(np.sin(2 * np.pi * k * 480 * tb) / k for k in range(1, 6)) * np.exp(-tb / 0.05)
        bark = bark + 0.4 * rng.normal(size=bark_n) * np.exp(-tb / 0.03)
        for at in (0.55 * seconds, 0.68 * seconds):
            _place(sound, bark, int(at * SAMPLE_RATE), 1.8)
    elif kind == "train":
        sound = _spectral_noise(rng, n, 30, 400, slope=1.5)
        for at in np.arange(0.05, seconds, 0.45):
            clack = rng.normal(size=400) * np.exp(-np.arange(400) / 60)
            _place(sound, clack, int(at * SAMPLE_RATE), 2.0)
        chime_n = int(0.25 * SAMPLE_RATE)
        chime = np.sin(2 * np.pi * 660 * np.arange(chime_n) / SAMPLE_RATE) * np.exp(
            -np.arange(chime_n) / 1500
        )
        _place(sound, chime, int(0.1 * SAMPLE_RATE), 1.0)
        _place(sound, chime * 0.8, int(0.35 * SAMPLE_RATE), 0.8)
    elif kind == "street":
        sound = _spectral_noise(rng, n, 40, 1500, slope=1.2)
        sound *= 0.6 + 0.8 * np.exp(-(((t - 0.6 * seconds) / (0.25 * seconds)) ** 2))
    else:
        raise ValueError(kind)
    return sound / (np.sqrt(np.mean(sound**2)) + 1e-12)


def voice_message(seed: int, seconds: float, f0: float, background: str) -> bytes:
    """A 16 kHz mono 16-bit WAV: speech-like voice over an ambient sound (about 10 dB below)."""
    rng = np.random.default_rng(seed)
    mix = 0.16 * speech_like(rng, seconds, f0) + 0.05 * ambient(background, rng, seconds)
    fade = int(0.02 * SAMPLE_RATE)
    mix[:fade] *= np.linspace(0, 1, fade)
    mix[-fade:] *= np.linspace(1, 0, fade)
    pcm = np.clip(np.round(mix * 32767), -32768, 32767).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(SAMPLE_RATE)
        handle.writeframes(pcm.tobytes())
    return buffer.getvalue()


# --------------------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------------------


def _room(
    draw: ImageDraw.ImageDraw, wall: tuple[int, int, int], floor: tuple[int, int, int]
) -> None:
    draw.rectangle((0, 0, 159, 84), fill=wall)
    draw.rectangle((0, 85, 159, 119), fill=floor)


def _desk(draw: ImageDraw.ImageDraw) -> None:
    _room(draw, (214, 222, 230), (170, 150, 125))
    draw.rectangle((100, 10, 150, 50), fill=(180, 215, 240), outline=(120, 120, 120))  # window
    draw.rectangle((30, 60, 120, 66), fill=(120, 90, 60))
    draw.line((36, 66, 36, 100), fill=(90, 70, 50), width=3)
    draw.line((114, 66, 114, 100), fill=(90, 70, 50), width=3)
    draw.rectangle((50, 40, 84, 60), fill=(60, 60, 70))  # laptop screen
    draw.rectangle((88, 54, 108, 60), fill=(40, 40, 40))  # drawing tablet


def _balcony(draw: ImageDraw.ImageDraw) -> None:
    _room(draw, (200, 225, 245), (160, 160, 160))
    for x in range(10, 160, 14):
        draw.line((x, 60, x, 95), fill=(90, 90, 90), width=2)
    draw.line((0, 60, 159, 60), fill=(90, 90, 90), width=3)
    for x in (30, 55, 80):
        draw.rectangle((x, 82, x + 16, 100), fill=(170, 90, 60))
        draw.ellipse((x - 4, 62, x + 20, 86), fill=(70, 140, 70))
    draw.rectangle((100, 70, 124, 74), fill=(140, 110, 80))  # folding chair


def _living_room(draw: ImageDraw.ImageDraw) -> None:
    _room(draw, (235, 225, 205), (150, 120, 95))
    draw.rounded_rectangle((35, 60, 115, 95), radius=8, fill=(140, 140, 150))
    draw.rectangle((40, 50, 110, 64), fill=(150, 150, 160))
    draw.line((125, 40, 125, 95), fill=(60, 60, 60), width=2)
    draw.polygon([(116, 40), (134, 40), (130, 28), (120, 28)], fill=(240, 220, 150))


def _hallway(draw: ImageDraw.ImageDraw) -> None:
    _room(draw, (225, 220, 215), (120, 100, 85))
    draw.rectangle((20, 70, 70, 100), fill=(110, 80, 55))
    for y in (78, 88):
        draw.line((20, y, 70, y), fill=(80, 60, 40), width=2)
    draw.rectangle((90, 15, 120, 70), fill=(200, 220, 230), outline=(110, 110, 110))  # mirror


def _peripheral(draw: ImageDraw.ImageDraw, name: str) -> None:
    """The small object in a corner that the caption leaves out."""
    if name == "yoga mat":
        draw.rounded_rectangle((140, 70, 150, 108), radius=5, fill=(120, 60, 160))
    elif name == "dog bowl and leash":
        draw.ellipse((132, 104, 152, 114), fill=(200, 50, 50))
        draw.line((150, 60, 154, 100), fill=(30, 90, 200), width=2)
    elif name == "guitar":
        draw.ellipse((138, 80, 156, 100), fill=(180, 110, 50))
        draw.line((147, 82, 147, 52), fill=(90, 60, 30), width=3)
    elif name == "bicycle helmet":
        draw.chord((132, 20, 156, 40), 180, 360, fill=(220, 30, 30))
        draw.line((134, 30, 154, 30), fill=(40, 40, 40), width=1)
    elif name == "reading lamp":
        draw.polygon([(140, 50), (156, 50), (152, 40), (144, 40)], fill=(250, 230, 160))


SCENES = {"desk": _desk, "balcony": _balcony, "living_room": _living_room, "hallway": _hallway}


def scene(kind: str, peripheral: str) -> bytes:
    """A 160x120 PNG of a scene with one small peripheral object (palette, reproducible)."""
    image = Image.new("RGB", (160, 120))
    draw = ImageDraw.Draw(image)
    SCENES[kind](draw)
    _peripheral(draw, peripheral)
    return _png(image)


def option_image(colour: tuple[int, int, int], shape: str) -> bytes:
    """A 64x64 option picture: one object (lamp, strings, racket, ball) on white."""
    image = Image.new("RGB", (64, 64), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    if shape == "floor lamp":
        draw.line((32, 20, 32, 56), fill=(60, 60, 60), width=3)
        draw.polygon([(20, 22), (44, 22), (38, 8), (26, 8)], fill=colour)
    elif shape == "desk lamp":
        draw.line((20, 54, 34, 30), fill=(60, 60, 60), width=3)
        draw.polygon([(30, 30), (48, 24), (44, 16)], fill=colour)
    elif shape == "pendant lamp":
        draw.line((32, 0, 32, 24), fill=(60, 60, 60), width=1)
        draw.chord((16, 18, 48, 44), 180, 360, fill=colour)
    elif shape == "lantern":
        draw.rectangle((22, 20, 42, 48), fill=colour, outline=(60, 60, 60))
    elif shape == "strings":
        for offset in range(0, 12, 3):
            draw.arc((14 + offset, 14 + offset, 50 - offset, 50 - offset), 0, 360, fill=colour)
    elif shape == "racket":
        draw.ellipse((18, 8, 46, 40), outline=colour, width=3)
        draw.line((32, 40, 32, 58), fill=colour, width=4)
    elif shape == "ball":
        draw.ellipse((20, 20, 44, 44), fill=colour)
    else:
        draw.rectangle((18, 24, 46, 40), fill=colour)
    return _png(image)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.quantize(colors=24, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        buffer, format="PNG", optimize=False, compress_level=9
    )
    return buffer.getvalue()
