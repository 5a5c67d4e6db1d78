#!/usr/bin/env python3
"""doc_options_check.py: every option a document names on a starzk command
line exists in that command's --help.

    doc_options_check.py STARZK_BIN SOURCE_DIR

Reads README.md, docs/*.md and docs/starzk.1, finds each `starzk COMMAND
[SUBCOMMAND] ...` command line (in code blocks and inline code; in the man
page, the roff text with its escapes undone) and the `--option` words that
follow it on that line, up to a shell separator (| ; && > #) or the end of
the code span. Each option must appear in `starzk COMMAND [SUB] --help`.
Exit 0 when every one does; otherwise one line per missing option, naming
the file and line, and exit 1. A document that says `starzk prove --check`
while no such option exists is what this catches.
"""
import pathlib
import re
import subprocess
import sys

COMMANDS = {"prove", "verify", "setup", "info", "cache", "trace", "gen", "bench", "vk"}
NESTED = {"trace": {"summary", "plot", "check", "replay"}, "vk": {"export"}}


def help_text(binary, words, cache):
    key = tuple(words)
    if key not in cache:
        r = subprocess.run([binary, *words, "--help"], capture_output=True, text=True)
        cache[key] = r.stdout + r.stderr if r.returncode == 0 else None
    return cache[key]


def command_lines(text):
    """(line number, the text after 'starzk ') for each starzk command line."""
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"(?<![\w/.-])starzk\s+([a-z][\w-]*)((?:[^`|;&>#\n])*)", line):
            yield n, m.group(1), m.group(2)


def main():
    binary, src = sys.argv[1], pathlib.Path(sys.argv[2])
    files = [src / "README.md", *sorted((src / "docs").glob("*.md")), src / "docs" / "starzk.1"]
    cache, missing, checked = {}, [], 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        if f.suffix == ".1":
            text = re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-")
            text = re.sub(r"^\.(?:B|I|BR|RB|IR|RI)\s+", "", text, flags=re.M)
        for n, cmd, rest in command_lines(text):
            if cmd not in COMMANDS:
                continue
            words = [cmd]
            sub = rest.split()
            if cmd in NESTED and sub and sub[0] in NESTED[cmd]:
                words.append(sub[0])
            options = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", rest))
            if not options:
                continue
            helped = help_text(binary, words, cache)
            if helped is None:
                missing.append(f"{f.relative_to(src)}:{n}: 'starzk {' '.join(words)} --help' failed")
                continue
            for o in sorted(options):
                checked += 1
                if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", helped):
                    missing.append(f"{f.relative_to(src)}:{n}: starzk {' '.join(words)} has no {o}")
    for m in missing:
        print(m)
    print(f"{checked} documented options checked, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
