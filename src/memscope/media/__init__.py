"""Media for the front ends: audio clips (load, waveform envelope, playback).

Heavy or optional libraries (soundfile, sounddevice / PortAudio) load only when used; see
:mod:`memscope.media.audio`.
"""
