"""Dead-code check (issue 23 §4): no function, method, class or property in src/ranktrust that nothing uses.

Runs vulture (from pyproject's test extra) over the package *and* its users (tests, bench, examples), so a
public name that only users call is not dead; prints what is, and exits 1. Settings: [tool.vulture] in
pyproject.toml. Run: .venv/bin/python .ci/deadcode.py
"""

from __future__ import annotations

import re
import subprocess
import sys

KINDS = re.compile(r"^src/ranktrust/\S+: unused (function|method|class|property) ")


def main() -> int:
    out = subprocess.run([sys.executable, "-m", "vulture"], capture_output=True, text=True, check=False)
    if out.returncode not in (0, 3) or (out.stderr and "Traceback" in out.stderr):
        sys.stderr.write(out.stderr)
        return 2
    dead = [line for line in out.stdout.splitlines() if KINDS.match(line)]
    for line in dead:
        print(line)
    print(f"dead code: {len(dead)} unused function(s), method(s), class(es) or propert(ies) in src/ranktrust")
    return 1 if dead else 0


if __name__ == "__main__":
    sys.exit(main())
