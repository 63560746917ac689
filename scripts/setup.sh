#!/usr/bin/env bash
# Installs memscope and everything it needs into ./.venv. Safe to run again.
#
#   PYTHON=python3.12 ./scripts/setup.sh    # pick the interpreter (3.11 or newer)
set -euo pipefail
cd "$(dirname "$0")/.."

# Audio playback (sounddevice) needs the PortAudio system library.
if ! ldconfig -p 2>/dev/null | grep -q 'libportaudio\.so\.2'; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libportaudio2 >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libportaudio2 >/dev/null
  else
    echo "note: install the PortAudio library (Debian/Ubuntu: apt-get install libportaudio2) for audio playback" >&2
  fi
fi

PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# The torch and torchvision builds this project is tested with (open_clip needs this
# torchvision); on the project's machines pip takes them from local disk.
.venv/bin/python -m pip install -q torch==2.14.1 torchvision==0.29.1
.venv/bin/python -m pip install -q -e '.[test]'
