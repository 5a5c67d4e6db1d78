#!/usr/bin/env python3
"""A simulated machine with N GPUs, from the bus files StarPU wrote on a
real host with one (or more) of the same GPU.

    bench/perfmodels/make-platform.py FROM_BUS_DIR FROM_HOST GPUS NEW_HOST OUT_BUS_DIR
        [--cpus N] [--host-bw GBPS] [--peer-bw GBPS]

StarPU built with SimGrid simulates the machine STARPU_HOSTNAME names from
the files of its sampling folder's bus/ (docs/install.md, "Simulated
machines"): the platform file (SimGrid's hosts, links and routes, in the
two XML versions StarPU writes), the bandwidth and latency matrices
between memory nodes (MB/s, us), each GPU's nearest NUMA node, and the
device counts. This writes all six for NEW_HOST with GPUS GPUs, each a copy
of FROM_HOST's first GPU (its memory and its host links' bandwidth and
latency), in the form StarPU itself writes when it has no PCIe tree to
describe ("flat": every route crosses one shared link named Host).

Assumptions, to be stated with any result:
  * every GPU has its own PCIe link of the measured bandwidth;
  * the Host link, which every host-device copy crosses, carries
    --host-bw GB/s (default: GPUS times one GPU's link, so the host's
    memory never limits; StarPU's own flat files give it one link's
    bandwidth, which makes all GPUs share one link's worth);
  * GPU to GPU copies go peer to peer at --peer-bw GB/s (default: one
    GPU's host link, as through PCIe; NVLink would be several times more).
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET


def read_source(bus_dir, host):
    tree = ET.parse(os.path.join(bus_dir, host + ".platform.xml"))
    hosts, links = {}, {}
    for el in tree.iter("host"):
        hosts[el.get("id")] = {p.get("id"): p.get("value") for p in el.iter("prop")} | {"power": el.get("power")}
    for el in tree.iter("link"):
        links[el.get("id")] = (float(el.get("bandwidth")), float(el.get("latency")))
    if "CUDA0" not in hosts or "RAM-CUDA0" not in links or "CUDA0-RAM" not in links:
        sys.exit(f"make-platform: {bus_dir}/{host}.platform.xml describes no CUDA0 with its RAM links")
    cpus = sum(1 for h in hosts if re.fullmatch(r"CPU\d+", h))
    def cells(name):  # the first two rows' first two values of a bus matrix
        with open(os.path.join(bus_dir, host + "." + name)) as f:
            header = f.readline()
            rows = [f.readline().split() for _ in range(2)]
        return header.count("to "), float(rows[0][1]), float(rows[1][0])

    width, bw_down, bw_up = cells("bandwidth")
    _, lat_down, lat_up = cells("latency")
    return {
        "cpus": cpus,
        "cpu_power": hosts["CPU0"]["power"] if "CPU0" in hosts else "2000000000",
        "gpu_power": hosts["CUDA0"]["power"],  # from the version-3 file: no unit
        "memsize": hosts["CUDA0"].get("memsize", "0"),
        "down": links["RAM-CUDA0"],  # host to device: bytes/s, s
        "up": links["CUDA0-RAM"],
        "width": width,
        "matrix_bw": (bw_down, bw_up),  # MB/s, host to device and back
        "matrix_lat": (lat_down, lat_up),  # us
    }


def platform_xml(src, gpus, cpus, host_bw, peer_bw, version):
    v4 = version == 4
    dtd = "simgrid/simgrid.dtd" if v4 else "simgrid.dtd"
    dash = "-" if v4 else "_"
    # Version 4 names a host's power "speed" and gives every value its unit.
    power, flops, bps, sec = ("speed", "f", "Bps", "s") if v4 else ("power", "", "", "")

    def link(name, bw, lat):
        return f'   <link id="{name}" bandwidth="{bw:f}{bps}" latency="{lat:f}{sec}"/>'

    out = ["<?xml version='1.0'?>",
           f"<!DOCTYPE platform SYSTEM 'http://simgrid.gforge.inria.fr/{dtd}'>",
           f' <platform version="{version}">',
           ' <config id="General">',
           f'   <prop id="network/TCP{dash}gamma" value="-1"></prop>',
           f'   <prop id="network/latency{dash}factor" value="1"></prop>',
           f'   <prop id="network/bandwidth{dash}factor" value="1"></prop>',
           '   <prop id="network/crosstraffic" value="0"></prop>',
           f'   <prop id="network/weight{dash}S" value="0.0"></prop>',
           " </config>",
           ' <AS  id="AS0"  routing="Full">',
           f'   <host id="MAIN" {power}="1{flops}"/>']
    out += [f'   <host id="CPU{i}" {power}="{src["cpu_power"]}{flops}"/>' for i in range(cpus)]
    for g in range(gpus):
        out += [f'   <host id="CUDA{g}" {power}="{src["gpu_power"]}{flops}">',
                f'     <prop id="memsize" value="{src["memsize"]}"/>',
                '     <prop id="memcpy_peer" value="1"/>',
                "   </host>"]
    out += ["", f'   <host id="RAM" {power}="1{flops}"/>', "", link("Host", host_bw, 0.0), ""]
    for g in range(gpus):
        out.append(link(f"RAM-CUDA{g}", *src["down"]))
        out.append(link(f"CUDA{g}-RAM", *src["up"]))
    for a in range(gpus):
        for b in range(gpus):
            if a != b:
                out.append(link(f"CUDA{a}-CUDA{b}", peer_bw, src["up"][1]))
    out.append("")
    for g in range(gpus):
        out.append(f'   <route src="RAM" dst="CUDA{g}" symmetrical="NO"><link_ctn id="RAM-CUDA{g}"/>'
                   '<link_ctn id="Host"/></route>')
        out.append(f'   <route src="CUDA{g}" dst="RAM" symmetrical="NO"><link_ctn id="CUDA{g}-RAM"/>'
                   '<link_ctn id="Host"/></route>')
    for a in range(gpus):
        for b in range(gpus):
            if a != b:
                out.append(f'   <route src="CUDA{a}" dst="CUDA{b}" symmetrical="NO"><link_ctn id="CUDA{a}-CUDA{b}"/>'
                           '<link_ctn id="Host"/></route>')
    out += ["", " </AS>", " </platform>", ""]
    return "\n".join(out)


def matrix(src, gpus, value_of):
    """StarPU's bus matrix: node 0 the host memory, nodes 1.. the GPUs."""
    width = src["width"]
    lines = ["# " + "".join(f"to {j}\t\t" for j in range(width))]
    for i in range(width):
        row = []
        for j in range(width):
            v = value_of(i, j) if i <= gpus and j <= gpus else None
            row.append("nan" if v is None else f"{v:e}")
        lines.append("\t".join(row))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("from_dir")
    ap.add_argument("from_host")
    ap.add_argument("gpus", type=int)
    ap.add_argument("new_host")
    ap.add_argument("out_dir")
    ap.add_argument("--cpus", type=int)
    ap.add_argument("--host-bw", type=float, help="GB/s of the link every host-device copy crosses")
    ap.add_argument("--peer-bw", type=float, help="GB/s of a GPU-to-GPU copy")
    a = ap.parse_args()
    src = read_source(a.from_dir, a.from_host)
    if not 1 <= a.gpus < src["width"]:
        sys.exit(f"make-platform: {a.gpus} GPUs: StarPU's bus files hold 1 to {src['width'] - 1}")
    cpus = a.cpus if a.cpus else src["cpus"]
    link = max(src["down"][0], src["up"][0])
    host_bw = a.host_bw * 1e9 if a.host_bw else a.gpus * link
    peer_bw = a.peer_bw * 1e9 if a.peer_bw else min(src["down"][0], src["up"][0])
    os.makedirs(a.out_dir, exist_ok=True)
    base = os.path.join(a.out_dir, a.new_host)
    for version, suffix in ((3, ".platform.xml"), (4, ".platform.v4.xml")):
        with open(base + suffix, "w") as f:
            f.write(platform_xml(src, a.gpus, cpus, host_bw, peer_bw, version))

    def bandwidth(i, j):  # MB/s
        if i == j:
            return 0.0
        if i == 0:
            return src["matrix_bw"][0]
        if j == 0:
            return src["matrix_bw"][1]
        return peer_bw / 1e6

    def latency(i, j):  # us
        if i == j:
            return 0.0
        return src["matrix_lat"][0] if i == 0 else src["matrix_lat"][1]

    with open(base + ".bandwidth", "w") as f:
        f.write(matrix(src, a.gpus, bandwidth))
    with open(base + ".latency", "w") as f:
        f.write(matrix(src, a.gpus, latency))
    with open(base + ".affinity", "w") as f:
        f.write("# GPU\tNUMA0\t\n" + "".join(f"{g}\t0\t\n" for g in range(a.gpus)))
    with open(base + ".config", "w") as f:
        f.write(f"# Current configuration\n{cpus} # Number of CPUs\n1 # Number of NUMA nodes\n"
                f"{a.gpus} # Number of CUDA devices\n0 # Number of OpenCL devices\n"
                "0 # Number of MIC devices\n0 # Number of MPI devices\n")
    print(f"{base}.*: {a.gpus} GPUs, {cpus} CPUs, host link {host_bw / 1e9:.1f} GB/s, peer {peer_bw / 1e9:.1f} GB/s")


if __name__ == "__main__":
    main()
