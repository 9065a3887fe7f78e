#!/usr/bin/env python3
"""Plays a cast with the real asciinema client and prints the final screen.

Usage: cast_screen.py [--client EXE] FILE.cast

Has the asciinema client print the terminal output the cast holds: for the
2.x client (Python, from PyPI) `asciinema cat FILE.cast`, for 3.x (Rust,
from crates.io), whose `cat` joins recordings instead, `asciinema convert
-f raw FILE.cast -`. Feeds that to the pyte terminal emulator at the size
the cast's header gives (v2 `width`/`height`, v3 `term.cols`/`term.rows`)
and prints pyte's screen, one line per row. EXE is `asciinema` on PATH
unless given. Exits 3 when the client or pyte is not installed, so the
Rust test can skip with a message.
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
    args = sys.argv[1:]
    client = "asciinema"
    if len(args) == 3 and args[0] == "--client":
        client, args = args[1], args[2:]
    if len(args) != 1:
        print("usage: cast_screen.py [--client EXE] FILE.cast", file=sys.stderr)
        return 2
    exe = shutil.which(client)
    if exe is None:
        print(f"{client} is not installed", file=sys.stderr)
        return 3
    path = args[0]
    version = subprocess.run(
        [exe, "--version"], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, check=True
    ).stdout.decode()
    if version.startswith("asciinema 3"):
        command = [exe, "convert", "-f", "raw", path, "-"]
    else:
        command = [exe, "cat", path]
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
    if header.get("version") == 3:
        cols, rows = header["term"]["cols"], header["term"]["rows"]
    else:
        cols, rows = header["width"], header["height"]
    # A session of its own: without a controlling terminal, `asciinema cat`
    # does not put one into raw mode, it just prints.
    out = subprocess.run(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        start_new_session=True,
        check=True,
    ).stdout
    screen = pyte.Screen(cols, rows)
    pyte.ByteStream(screen).feed(out)
    for line in screen.display:
        sys.stdout.buffer.write((line + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
