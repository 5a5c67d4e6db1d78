#!/usr/bin/env python3
"""Host data a kernel reads go up in one of two ways (docs/gpu.md, "Host data
a kernel reads"): device_buffer_t::upload, which waits for the copy to land,
or cudaMemcpyAsync on the stream of the kernel that reads them. starzk's
streams are non-blocking, so they do not wait for CUDA's legacy stream, and
a cudaMemcpy from pageable memory may return before its DMA is done; the
same goes for cudaMemset and the symbol copies, which run on the legacy
stream. This check fails on any such legacy-stream call outside
cuda/host_api.cpp, the one place that makes it and then waits.

    upload_rule_check.py REPO_ROOT
"""
import os
import re
import sys

ALLOWED = {os.path.join("cuda", "host_api.cpp")}
FOLDERS = ("cuda", "src", "codelets", "dag", "policies", "bench", "tests")
SUFFIXES = (".cpp", ".cu", ".cuh", ".hpp", ".h")
LEGACY = re.compile(r"\b(cudaMemcpy|cudaMemset|cudaMemcpyToSymbol|cudaMemcpyFromSymbol|cudaMemcpy2D)\s*\(")


def strip_comments(line, in_block):
    """The code of one line, without // and /* */ comments."""
    out = []
    i = 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block = True
            i += 2
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


def violations(root):
    found = []
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if rel in ALLOWED:
                    continue
                in_block = False
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        code, in_block = strip_comments(line, in_block)
                        m = LEGACY.search(code)
                        if m:
                            found.append(f"{rel}:{number}: {m.group(1)} on the legacy stream")
    return found


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: upload_rule_check.py REPO_ROOT", file=sys.stderr)
        return 2
    found = violations(sys.argv[1])
    for v in found:
        print(v)
    if found:
        print(f"{len(found)} call(s) a kernel on a non-blocking stream may overtake: use "
              "device_buffer_t::upload or cudaMemcpyAsync on the reading kernel's stream (docs/gpu.md)")
        return 1
    print("upload rule: no legacy-stream copy outside cuda/host_api.cpp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
