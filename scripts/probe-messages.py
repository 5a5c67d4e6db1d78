#!/usr/bin/env python3
"""Probe every error message starzk prints about a bad input for the file's name.

Usage: scripts/probe-messages.py [BUILD] [--only KIND,...] [--work DIR] [--keep] [--verbose]

Makes seeds of every format starzk reads from tests/fixtures/multiplier
(.zkey, .r1cs, .wtns, snarkjs JSON; .params, .vk, .szkc, .szcs and 192-byte
proofs made from them with the binary; .szpk from `starzk gen --format
compact`; a trace from `prove --manifest --trace`; TOML and JSON manifests),
then mutates each one (empty, truncated, bytes and header words changed,
random bytes, another format's file, trailing junk; for text formats broken
syntax and wrong types; for paths: missing, a folder, /dev/null) and runs
every command that reads it (info, prove with --zkey/--params/--circuit/
--wtns/--manifest, verify, cache, cache --check, setup, vk export, trace).

A run that fails is counted as unnamed when its error line (the last
"starzk: " line of stderr; for a batch, any line that is not progress) does
not contain the mutated file's name, and as a wrong status when its exit status
is not the documented one (docs/usage.md: 3 for a bad input file; 1 where a
batch partition failed, the prover refused a witness or key that parse, or
verify found a proof INVALID; 2 for a packed key given without --circuit).
A crash (a signal, a timeout) is always reported. Prints one line per
finding and a summary; exits 1 if any (docs/reliability.md §8 has the
counts).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "multiplier"


def run(starzk, args, cwd, timeout=30):
    env = dict(os.environ, STARPU_SILENT="1", STARZK_VALIDATED_KEYS="off",
               STARPU_HOME=str(Path(cwd).parent / "starpu-home"))
    try:
        p = subprocess.run([str(starzk)] + args, cwd=cwd, env=env, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def make_seeds(starzk, seeds):
    seeds.mkdir(parents=True)
    for f in ["circuit.zkey", "circuit.r1cs", "witness.wtns", "verification_key.json", "proof.json", "public.json"]:
        shutil.copy(FIXTURE / f, seeds / f)
    steps = [
        ["setup", "--r1cs", "circuit.r1cs", "--params", "key.params", "--gpu", "off"],
        ["vk", "export", "--params", "key.params", "--circuit", "circuit.r1cs", "--vk", "key.vk"],
        ["cache", "--zkey", "circuit.zkey", "--circuit", "circuit.r1cs", "--out", "zkey.szkc",
         "--csr-out", "circuit.szcs"],
        ["cache", "--params", "key.params", "--circuit", "circuit.r1cs", "--out", "params.szkc"],
        ["prove", "--zkey", "circuit.zkey", "--wtns", "witness.wtns", "--out", "proofs.bin", "--gpu", "off"],
        ["prove", "--params", "key.params", "--circuit", "circuit.r1cs", "--wtns", "witness.wtns", "--out",
         "params-proofs.bin", "--public", "params-public.json", "--gpu", "off"],
        ["gen", "-k", "10", "-n", "1", "-o", "packed", "--format", "compact", "--gpu", "off"],
    ]
    for s in steps:
        rc, out, err = run(starzk, s, seeds, timeout=120)
        if rc != 0:
            sys.exit(f"seed step {' '.join(s)} failed ({rc}): {err}")
    for f in ["key.szpk", "circuit.szcs", "witness-0.wtns"]:
        shutil.move(seeds / "packed" / f, seeds / ("packed-" + f))
    shutil.rmtree(seeds / "packed")
    (seeds / "jobs.toml").write_text(
        "[[job]]\nname = 'j'\nkey = 'circuit.zkey'\ncircuit = 'circuit.r1cs'\n"
        "witnesses = ['witness.wtns']\nout_dir = 'out'\nproofs_bin = 'out.bin'\n")
    (seeds / "jobs.json").write_text(json.dumps({"jobs": [
        {"name": "j", "key": "circuit.zkey", "witnesses": ["witness.wtns"], "out_dir": "out"}]}))
    rc, out, err = run(starzk, ["prove", "--manifest", "jobs.toml", "--cpus", "1", "--trace", "trace.json"], seeds)
    if rc != 0:
        sys.exit(f"seed trace failed ({rc}): {err}")
    for f in ["out", "out.bin"]:
        p = seeds / f
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    for p in seeds.glob("*.journal*"):
        p.unlink()


# Commands that read a file of each kind. {F} is the mutated file; the rest
# are the good seeds, copied beside it.
COMMANDS = {
    "zkey": [["info", "{F}"],
             ["prove", "--zkey", "{F}", "--wtns", "witness.wtns", "--proof", "p.json", "--gpu", "off"],
             ["prove", "--zkey", "{F}", "--circuit", "circuit.r1cs", "--wtns", "witness.wtns", "--out", "p.bin",
              "--gpu", "off"],
             ["verify", "--zkey", "{F}", "--proof", "proof.json", "--public", "public.json"],
             ["cache", "--zkey", "{F}", "--out", "o.szkc"],
             ["vk", "export", "--zkey", "{F}", "--json", "o.json"],
             ["manifest-key"]],
    "r1cs": [["info", "{F}"],
             ["setup", "--r1cs", "{F}", "--zkey", "o.zkey", "--gpu", "off"],
             ["prove", "--zkey", "circuit.zkey", "--circuit", "{F}", "--wtns", "witness.wtns", "--out", "p.bin",
              "--gpu", "off"],
             ["prove", "--params", "key.params", "--circuit", "{F}", "--wtns", "witness.wtns", "--out", "p.bin",
              "--gpu", "off"],
             ["cache", "--params", "key.params", "--circuit", "{F}", "--out", "o.szkc"],
             ["manifest-circuit"]],
    "wtns": [["info", "{F}"],
             ["prove", "--zkey", "circuit.zkey", "--wtns", "{F}", "--out", "p.bin", "--gpu", "off"],
             ["manifest-witness"]],
    "params": [["info", "{F}"],
               ["prove", "--params", "{F}", "--circuit", "circuit.r1cs", "--wtns", "witness.wtns", "--out", "p.bin",
                "--gpu", "off"],
               ["verify", "--params", "{F}", "--proof", "params-proofs.bin", "--public", "params-public.json"],
               ["cache", "--params", "{F}", "--circuit", "circuit.r1cs", "--out", "o.szkc"],
               ["vk", "export", "--params", "{F}", "--circuit", "circuit.r1cs", "--vk", "o.vk"],
               ["manifest-params"]],
    "vk": [["info", "{F}"],
           ["verify", "--params", "{F}", "--proof", "params-proofs.bin", "--public", "params-public.json"]],
    "szkc": [["info", "{F}"],
             ["cache", "--check", "{F}"],
             ["prove", "--zkey", "{F}", "--wtns", "witness.wtns", "--out", "p.bin", "--gpu", "off"],
             ["verify", "--zkey", "{F}", "--proof", "proofs.bin", "--public", "public.json"],
             ["vk", "export", "--zkey", "{F}", "--json", "o.json"],
             ["manifest-key"]],
    "szcs": [["info", "{F}"],
             ["cache", "--check", "{F}"],
             ["prove", "--params", "key.params", "--circuit", "{F}", "--wtns", "witness.wtns", "--out", "p.bin",
              "--gpu", "off"],
             ["manifest-params-circuit"]],
    "szpk": [["info", "{F}"],
             ["prove", "--zkey", "{F}", "--circuit", "packed-circuit.szcs", "--wtns", "packed-witness-0.wtns",
              "--out", "p.bin", "--gpu", "off"],
             ["vk", "export", "--zkey", "{F}", "--circuit", "packed-circuit.szcs", "--json", "o.json"]],
    "bin": [["info", "{F}"],
            ["verify", "--zkey", "circuit.zkey", "--proof", "{F}", "--public", "public.json"]],
    "proof": [["info", "{F}"],
              ["verify", "--vkey", "verification_key.json", "--proof", "{F}", "--public", "public.json"]],
    "public": [["info", "{F}"],
               ["verify", "--vkey", "verification_key.json", "--proof", "proof.json", "--public", "{F}"]],
    "vkey": [["info", "{F}"],
             ["verify", "--vkey", "{F}", "--proof", "proof.json", "--public", "public.json"]],
    "toml": [["info", "{F}"], ["prove", "--manifest", "{F}", "--cpus", "1"]],
    "json": [["info", "{F}"], ["prove", "--manifest", "{F}", "--cpus", "1"]],
    "trace": [["trace", "summary", "{F}"], ["trace", "check", "{F}"]],
}
SEED = {"zkey": "circuit.zkey", "r1cs": "circuit.r1cs", "wtns": "witness.wtns", "params": "key.params",
        "vk": "key.vk", "szkc": "zkey.szkc", "szcs": "circuit.szcs", "szpk": "packed-key.szpk", "bin": "proofs.bin",
        "proof": "proof.json", "public": "public.json", "vkey": "verification_key.json", "toml": "jobs.toml",
        "json": "jobs.json", "trace": "trace.json"}
EXT = {"bin": "bin", "proof": "json", "public": "json", "vkey": "json", "toml": "toml", "json": "json",
       "trace": "json"}
TEXT = {"proof", "public", "vkey", "toml", "json", "trace"}


def manifest_for(kind, f):
    """A manifest whose job reads f in the role `kind`."""
    job = {"name": "j", "key": "circuit.zkey", "witnesses": ["witness.wtns"], "out_dir": "out"}
    if kind == "manifest-key":
        job["key"] = f
    elif kind == "manifest-circuit":
        job["circuit"] = f
    elif kind == "manifest-witness":
        job["witnesses"] = [f]
    elif kind == "manifest-params":
        job.update(key=f, circuit="circuit.r1cs")
    elif kind == "manifest-params-circuit":
        job.update(key="key.params", circuit=f)
    return json.dumps({"jobs": [job]})


def binary_mutants(data, rng):
    n = len(data)
    out = [("empty", b"")]
    for t in sorted({1, 3, 4, 8, 11, 12, 16, 24, 40, 64, 100, n // 4, n // 2, n - 1}):
        if 0 < t < n:
            out.append((f"truncated-{t}", data[:t]))
    for off in list(range(0, min(n, 160), 4)) + sorted(rng.sample(range(n), min(n, 8))):
        for v in (0, 0xFFFFFFFF):
            if off + 4 <= n:
                out.append((f"u32-{off}-{v:x}", data[:off] + v.to_bytes(4, "little") + data[off + 4:]))
    for off in sorted(rng.sample(range(n), min(n, 16))):
        out.append((f"byte-{off}", data[:off] + bytes([data[off] ^ 0xA5]) + data[off + 1:]))
    out.append(("random", bytes(rng.randrange(256) for _ in range(n))))
    out.append(("junk-after", data + b"\x01" * 37))
    return out


def text_mutants(data, rng):
    s = data.decode()
    out = [("empty", b""), ("half", data[: len(data) // 2]), ("open-brace", b"{"), ("array", b"[]"),
           ("object", b"{}"), ("null", b"null"), ("number", b"42"), ("binary", bytes(range(256))),
           ("bad-utf8", b'{"a": "\xff\xfe"}'), ("junk-after", data + b"}}}")]
    try:
        j = json.loads(s)
    except ValueError:
        j = None
    if isinstance(j, dict):
        for k in list(j)[:8]:
            out.append((f"drop-{k}", json.dumps({a: b for a, b in j.items() if a != k}).encode()))
            out.append((f"type-{k}", json.dumps({**j, k: {"x": 1}}).encode()))
            out.append((f"num-{k}", json.dumps({**j, k: 1e300}).encode()))
    if isinstance(j, list):
        out.append(("list-short", json.dumps(j[:-1]).encode()))
        out.append(("list-objects", json.dumps([{}] * len(j)).encode()))
        out.append(("list-huge", json.dumps(["9" * 100] * len(j)).encode()))
        out.append(("list-negative", json.dumps(["-1"] * len(j)).encode()))
    for i in sorted(rng.sample(range(len(data)), min(len(data), 12))):
        out.append((f"byte-{i}", data[:i] + bytes([data[i] ^ 0x20]) + data[i + 1:]))
    return out


def manifest_mutants(kind):
    """Manifests that parse but name a bad file: (name, bytes, the file the message may name instead)."""
    def m(job):
        full = {"name": "j", "key": "circuit.zkey", "witnesses": ["witness.wtns"], "out_dir": "out"}
        full.update(job)
        full = {k: v for k, v in full.items() if v is not None}
        if kind == "json":
            return json.dumps({"jobs": [full]}).encode()
        lines = ["[[job]]"]
        for k, v in full.items():
            lines.append(f"{k} = {json.dumps(v)}")
        return ("\n".join(lines) + "\n").encode()
    return [("key-missing", m({"key": "nope-key.zkey"}), "nope-key.zkey"),
            ("key-folder", m({"key": "folder"}), "folder"),
            ("witness-missing", m({"witnesses": ["nope-w.wtns"]}), "nope-w.wtns"),
            ("witness-folder", m({"witnesses": ["folder"]}), "folder"),
            ("circuit-missing", m({"circuit": "nope-c.r1cs"}), "nope-c.r1cs"),
            ("no-key", m({"key": None}), None), ("no-witnesses", m({"witnesses": []}), None),
            ("key-number", m({"key": 5}), None), ("no-outputs", m({"out_dir": None}), None),
            ("params-without-circuit", m({"key": "key.params"}), "key.params"),
            ("key-is-witness", m({"key": "witness.wtns"}), "witness.wtns"),
            ("out-dir-file", m({"out_dir": "witness.wtns"}), "witness.wtns")]


# Lines that report progress, not an error.
INFO = re.compile(r"points validated|validated before|ready in|memory budget|^starzk: \d+ jobs|progress:|unpacked|"
                  r"device memory|run again|proofs verified")


def error_lines(args, lines):
    """The lines that report the failure: the last one (main's), and for a batch every error line."""
    if args[0] == "prove" and "--manifest" in args:
        return [l for l in lines if not INFO.search(l)]
    return lines[-1:]


def expected_status(args, last, kind, other):
    """Documented statuses of a run that failed on a bad input."""
    if args[0] == "prove" and "--manifest" in args:
        if kind in ("toml", "json") and other is None:
            return {3}  # the manifest itself unreadable or malformed
        return {1, 3}  # a partition or job failed (1), or its file refused before any work (3)
    if "give its circuit (--circuit)" in last:
        return {2}  # usage: a packed key given without its circuit (--circuit)
    if args[0] == "prove" and ("does not verify" in last or "does not satisfy" in last):
        return {1}  # the answer is no: a witness or key that parses but gives no valid proof
    if args[0] == "verify" and "INVALID" in last:
        return {1}
    if args[0] == "trace" and args[1] == "check":
        return {1, 3}
    return {3}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", nargs="?", default=str(ROOT / "build"))
    ap.add_argument("--work", help="folder for seeds and cases (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--verbose", action="store_true", help="print every failing run's message")
    ap.add_argument("--only", help="comma-separated kinds (zkey,r1cs,...; paths)")
    a = ap.parse_args()
    starzk = Path(a.build).resolve() / "bin" / "starzk"
    work = Path(a.work or tempfile.mkdtemp(prefix="starzk-probe-"))
    if work.exists() and a.work:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    seeds = work / "seeds"
    make_seeds(starzk, seeds)
    rng = random.Random(20240522)
    only = set(a.only.split(",")) if a.only else None

    cases = []  # (kind, mutant name, file name, bytes or None for a path case, command)
    for kind, seed in SEED.items():
        if only and kind not in only:
            continue
        data = (seeds / seed).read_bytes()
        if kind in TEXT:
            muts = text_mutants(data, rng)
            if kind in ("toml", "json"):
                for mname, mbytes, other in manifest_mutants(kind):
                    fname = f"bad-{kind}-{mname}.{kind}"
                    for cmd in COMMANDS[kind]:
                        cases.append((kind, mname, fname, mbytes, cmd, other))
        else:
            muts = binary_mutants(data, rng)
        others = [s for k, s in SEED.items() if s != seed and k not in ("toml", "json")]
        for o in rng.sample(others, 4):
            muts.append((f"is-{o}", (seeds / o).read_bytes()))
        seen = set()
        for i, (mname, mbytes) in enumerate(muts):
            if mbytes in seen or mbytes == data:
                continue
            seen.add(mbytes)
            fname = f"bad-{kind}-{i}.{EXT.get(kind, kind)}"
            for cmd in COMMANDS[kind]:
                cases.append((kind, mname, fname, mbytes, cmd, None))
        # Path problems: a file that does not exist, a folder, /dev/null.
        for pname in ("missing", "folder", "devnull"):
            fname = f"bad-{kind}-{pname}.{EXT.get(kind, kind)}"
            for cmd in COMMANDS[kind]:
                cases.append((kind, pname, fname, pname, cmd, None))
    if not only or "outputs" in only:
        # Output paths that cannot be written.
        for target in ("nodir/bad-out.json", "bad-out-folder"):
            for cmd in (["prove", "--zkey", "circuit.zkey", "--wtns", "witness.wtns", "--proof", "{F}", "--gpu", "off"],
                        ["prove", "--zkey", "circuit.zkey", "--wtns", "witness.wtns", "--out", "{F}", "--gpu", "off"],
                        ["setup", "--r1cs", "circuit.r1cs", "--zkey", "{F}", "--gpu", "off"],
                        ["vk", "export", "--zkey", "circuit.zkey", "--json", "{F}"],
                        ["cache", "--zkey", "circuit.zkey", "--out", "{F}"]):
                cases.append(("output", target, target, "output", cmd, None))

    case_dir = work / "case"
    counts = {"runs": 0, "failed": 0, "unnamed": 0, "status": 0, "crash": 0}
    unnamed_messages = {}
    for kind, mname, fname, mbytes, cmd, other in cases:
        if case_dir.exists():
            shutil.rmtree(case_dir)
        case_dir.mkdir()
        (case_dir / "folder").mkdir()
        for f in seeds.iterdir():  # the good inputs, read only
            (case_dir / f.name).symlink_to(f)
        target = case_dir / fname
        if mbytes == "folder":
            target.mkdir()
        elif mbytes == "devnull":
            target.symlink_to("/dev/null")
        elif mbytes == "output":
            if fname == "bad-out-folder":
                target.mkdir()
        elif mbytes != "missing":
            target.write_bytes(mbytes)
        if cmd[0].startswith("manifest-"):
            (case_dir / "m.json").write_text(manifest_for(cmd[0], fname))
            args = ["prove", "--manifest", "m.json", "--cpus", "1"]
        else:
            args = [x.replace("{F}", fname) for x in cmd]
        rc, out, err = run(starzk, args, case_dir)
        counts["runs"] += 1
        what = f"{kind}/{mname}: starzk {' '.join(args)}"
        if rc == "timeout" or rc < 0 or rc >= 128:
            counts["crash"] += 1
            print(f"CRASH {rc} {what}\n      {err.strip().splitlines()[-1:] if err.strip() else ''}")
            continue
        if rc == 0:
            continue
        counts["failed"] += 1
        lines = error_lines(args, [l for l in err.splitlines() if l.startswith("starzk: ")])
        token = Path(fname).name
        if not any(token in l or (other and other in l) for l in lines):
            counts["unnamed"] += 1
            last = lines[-1] if lines else "(no starzk: line) " + err.strip()[-200:]
            unnamed_messages.setdefault(last.replace(fname, "FILE"), []).append(what)
            print(f"UNNAMED rc={rc} {what}\n      {last}")
        elif rc not in expected_status(args, lines[-1], kind, other):
            counts["status"] += 1
            print(f"STATUS {rc} {what}\n      {lines[-1]}")
        elif a.verbose:
            print(f"ok rc={rc} {what}\n      {lines[-1]}")
    print(f"\n{counts['runs']} runs, {counts['failed']} failed as expected or not; "
          f"{counts['unnamed']} errors that do not name the file ({len(unnamed_messages)} distinct messages), "
          f"{counts['status']} with an undocumented exit status, {counts['crash']} crashes or timeouts")
    for msg, whats in sorted(unnamed_messages.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(whats):4}  {msg}")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"work folder: {work}")
    return 1 if counts["unnamed"] or counts["status"] or counts["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
