#!/usr/bin/env python3
"""Plays a cast with the real asciinema client and prints the final screen.

Usage: cast_screen.py FILE.cast

Runs `asciinema cat FILE.cast` (the Python 2.x client from PyPI), feeds
what it prints to the pyte terminal emulator at the size the cast's header
gives, and prints pyte's screen, one line per row. Exits 3 when asciinema
or pyte is not installed, so the Rust test can skip with a message.
"""

import json
import shutil
import subprocess
import sys


def main() -> int:
    try:
        import pyte
    except ImportError:
        print("pyte is not installed (pip install pyte)", file=sys.stderr)
        return 3
    exe = shutil.which("asciinema")
    if exe is None:
        print("asciinema is not installed (pip install asciinema)", file=sys.stderr)
        return 3
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
    # A session of its own: without a controlling terminal, `asciinema cat`
    # does not put one into raw mode, it just prints.
    out = subprocess.run(
        [exe, "cat", path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        start_new_session=True,
        check=True,
    ).stdout
    screen = pyte.Screen(header["width"], header["height"])
    pyte.ByteStream(screen).feed(out)
    for line in screen.display:
        sys.stdout.buffer.write((line + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
