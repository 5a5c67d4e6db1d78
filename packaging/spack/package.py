# Spack recipe for starzk: Groth16 proofs over BLS12-381 as a StarPU task
# DAG, with its StarPU scheduling policies library. Copy this folder into a
# Spack repository (spack repo create; packages/starzk/package.py) and
#   spack install starzk +cuda cuda_arch=90 ^starpu@1.4 +cuda
# Variants: cuda (the H200 kernels; StarPU must then have CUDA too), mpi
# (`starzk prove --manifest --mpi`, StarPU-MPI). StarPU 1.3.10 and 1.4 are
# accepted (docs/install.md); the build refuses a StarPU whose
# STARPU_MAXCPUS is below 2 and warns when it is below the node's cores, so
# StarPU is asked for maxcpus=128 where its recipe has that variant.
# tests/install/packaging_check.sh loads this file with stand-ins for
# Spack's directives, so a syntax or directive error fails CI.
from spack.package import *


class Starzk(CMakePackage, CudaPackage):
    """Groth16 prover over BLS12-381 (snarkjs .zkey and bellman/Filecoin
    .params keys) scheduled as a StarPU task DAG over CPU cores and CUDA
    GPUs, with StarPU scheduling policies usable by any StarPU program."""

    homepage = "https://github.com/starzk/starzk"
    git = "https://github.com/starzk/starzk.git"
    maintainers("starzk")
    license("Apache-2.0")

    version("main", branch="main")

    variant("mpi", default=False, description="Multi-node batches with StarPU-MPI (prove --manifest --mpi)")
    variant("tests", default=False, description="Build the GoogleTest suite")

    depends_on("cmake@3.22:", type="build")
    depends_on("ninja", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("c", type="build")
    depends_on("cxx", type="build")

    depends_on("starpu@1.3.10:1.4")
    depends_on("starpu+cuda", when="+cuda")
    depends_on("starpu+mpi", when="+mpi")
    depends_on("mpi", when="+mpi")
    depends_on("hwloc")
    depends_on("gmp")
    # Header-only helpers of the command line.
    depends_on("cli11", type="build")
    depends_on("nlohmann-json", type="build")
    depends_on("tomlplusplus", type="build")
    depends_on("fmt", type="build")
    depends_on("googletest", type="build", when="+tests")

    conflicts("%gcc@:10", msg="starzk needs C++20 (GCC 11 or newer)")
    conflicts("cuda_arch=none", when="+cuda", msg="give cuda_arch (90 for the H200)")

    generator("ninja")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("STARPU_PREFIX", spec["starpu"].prefix),
            self.define_from_variant("STARZK_CUDA", "cuda"),
            self.define_from_variant("STARZK_TESTS", "tests"),
            self.define("STARZK_BENCH", False),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value))
        return args

    def setup_run_environment(self, env):
        env.set("STARZK_POLICY_PLUGIN_DIR", self.prefix.lib.starzk)
        env.prepend_path("MANPATH", self.prefix.share.man)

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_install(self):
        starzk = Executable(self.prefix.bin.starzk)
        starzk("--version")
