#!/usr/bin/env bash
# Installs memscope into ./.venv. Safe to run again; a run with more parts upgrades the same venv.
#
#   ./scripts/setup.sh                    # the triage tool and `memscope plot` (no model libraries)
#   ./scripts/setup.sh --engine           # + the memory engine (torch, open_clip, MiniLM, faiss)
#   ./scripts/setup.sh --engine --test    # + pytest and the static checks (scripts/test.sh)
#   PYTHON=python3.12 ./scripts/setup.sh  # pick the interpreter (3.11 or newer)
set -euo pipefail
cd "$(dirname "$0")/.."

# The plot extra (matplotlib) always: the README's figures (`memscope plot`) come right
# after its set-up, so the set-up installs what they need.
extras=(plot)
for arg in "$@"; do
  case "$arg" in
    --engine) extras+=(engine) ;;
    --test) extras+=(test) ;;
    *) echo "usage: scripts/setup.sh [--engine] [--test]" >&2; exit 2 ;;
  esac
done

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
# --no-compile: byte-compiling every installed module is over a third of the install's time;
# Python compiles the few modules memscope imports on their first use instead.
pip=(.venv/bin/python -m pip install -q --no-compile)
target=".[$(IFS=,; echo "${extras[*]}")]"
case " ${extras[*]-} " in
  *" engine "*)
    # The torch and torchvision builds this project is tested with (open_clip needs this
    # torchvision); on the project's machines pip takes them from local disk.
    # A second run skips pip (seconds of resolving) when exactly these builds are present.
    if ! .venv/bin/python - <<'PY' 2>/dev/null; then
from importlib.metadata import version
raise SystemExit(version("torch") != "2.14.1" or version("torchvision") != "0.29.1")
PY
      "${pip[@]}" torch==2.14.1 torchvision==0.29.1
    fi
    what="memscope and its memory engine are"
    ;;
  *) what="memscope (the triage tool and its figures; the memory engine: ./scripts/setup.sh --engine) is" ;;
esac
# A second run with the same parts skips the install (pip re-resolves every dependency and
# rebuilds the editable wheel: most of a minute) when nothing it depends on changed: the stamp
# records the parts asked for and the packaging files, and this checkout must still be the
# memscope the venv imports (rm .venv/memscope-setup.stamp forces a full install).
stamp=.venv/memscope-setup.stamp
wanted="$target $({ cat pyproject.toml setup.py 2>/dev/null || true; } | cksum)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] \
  && .venv/bin/python -c 'import memscope, pathlib, sys
sys.exit(pathlib.Path(memscope.__file__).resolve() != pathlib.Path("src/memscope/__init__.py").resolve())' 2>/dev/null; then
  echo "$what installed in .venv (unchanged since the last setup). Next: source .venv/bin/activate && memscope open runs/srag_v/"
  exit 0
fi
rm -f "$stamp"
# The distribution is memscope-triage; a venv made before the rename holds this checkout as
# `memscope` (the name of an unrelated project on the index), which would shadow it.
if .venv/bin/python -m pip show -q memscope >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y memscope
fi
# Its build metadata left in src/ would still announce the old name's entry points.
rm -rf src/memscope.egg-info
"${pip[@]}" -e "$target"
echo "$wanted" > "$stamp"
echo "$what installed in .venv. Next: source .venv/bin/activate && memscope open runs/srag_v/"
