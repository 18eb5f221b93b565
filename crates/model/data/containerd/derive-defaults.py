#!/usr/bin/env python3
"""Derives each recorded containerd version's built-in default config (as `config dump`
prints it) from the goldens, once, at development time. The model embeds the results
(`defaults-<version>.toml`) and never reads the goldens at run time.

Source: the `dropin-top-level-scalars` case, whose files set only `root`, `state`,
`oom_score` and `imports`: every plugin table in its dump is that version's decoded
default. Those four lines are put back to their defaults here.

Usage: derive-defaults.py ../../../../../shared/goldens/containerd
"""
import re
import sys
from pathlib import Path

goldens = Path(sys.argv[1])
case = goldens / "dropin-top-level-scalars"
here = Path(__file__).parent
for vdir in sorted(p for p in case.iterdir() if (p / "dump.toml").is_file()):
    text = (vdir / "dump.toml").read_text()
    v2 = text.startswith("version = ")  # go-toml v2 prints `version` first
    q = "'" if v2 else '"'
    default_imports = "[]"
    if v2 and not vdir.name.startswith(("2.0", "2.1")):
        default_imports = "['/etc/containerd/conf.d/*.toml']"
    repl = {
        "root": f"{q}/var/lib/containerd{q}",
        "state": f"{q}/run/containerd{q}",
        "oom_score": "0",
        "imports": default_imports,
    }
    out = []
    for line in text.splitlines(keepends=True):
        m = re.match(r"^(root|state|oom_score|imports) = ", line)
        if m:
            line = f"{m.group(1)} = {repl[m.group(1)]}\n"
        out.append(line)
    (here / f"defaults-{vdir.name}.toml").write_text("".join(out))
    print("wrote", f"defaults-{vdir.name}.toml")
