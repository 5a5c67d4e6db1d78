"""spack_recipe_check.py: loads packaging/spack/package.py without Spack.

Spack is not installed on CI machines, so this gives the recipe stand-ins
for what `from spack.package import *` provides (the base classes and the
directives, which here only record their arguments), imports it, and checks
what a centre relies on: the class is named after the package, it has the
cuda (from CudaPackage) and mpi variants, depends on StarPU 1.3.10 to 1.4
(with CUDA and MPI when those variants are on), and cmake_args passes
STARPU_PREFIX and the CUDA switch for a made-up spec.
Usage: python3 spack_recipe_check.py path/to/package.py
"""
import importlib.util
import sys
import types

calls = []


def directive(name):
    def record(*args, **kwargs):
        calls.append((name, args, kwargs))
        return lambda f: f  # usable as a decorator too
    return record


class Prefix(str):
    def __getattr__(self, part):
        return Prefix(self + "/" + part)


class Package:
    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return "-D%s=%s" % (name, value)

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.satisfies("+" + variant))


class CudaPackage(Package):
    pass


class FakeSpec:
    def __init__(self, on):
        self.on = on
        self.variants = {"cuda_arch": types.SimpleNamespace(value="90")}

    def satisfies(self, what):
        return what.lstrip("+") in self.on

    def __getitem__(self, dep):
        return types.SimpleNamespace(prefix=Prefix("/opt/" + dep))


spack = types.ModuleType("spack")
package = types.ModuleType("spack.package")
package.CMakePackage = type("CMakePackage", (Package,), {})
package.CudaPackage = CudaPackage
for name in ("version", "variant", "depends_on", "conflicts", "maintainers", "license", "generator",
             "run_after", "on_package_attributes", "patch", "provides"):
    setattr(package, name, directive(name))
package.Executable = lambda path: (lambda *a: None)
package.__all__ = [n for n in dir(package) if not n.startswith("_")]
spack.package = package
sys.modules["spack"] = spack
sys.modules["spack.package"] = package

spec = importlib.util.spec_from_file_location("starzk_package", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)


def fail(why):
    print("spack_recipe_check: " + why, file=sys.stderr)
    sys.exit(1)


cls = getattr(module, "Starzk", None) or fail("no class Starzk")
issubclass(cls, CudaPackage) or fail("Starzk is not a CudaPackage (no cuda variant)")
variants = {c[1][0] for c in calls if c[0] == "variant"}
"mpi" in variants or fail("no mpi variant")
deps = [(c[1][0], c[2].get("when")) for c in calls if c[0] == "depends_on"]
("starpu@1.3.10:1.4", None) in deps or fail("no dependency on starpu@1.3.10:1.4: %s" % deps)
("starpu+cuda", "+cuda") in deps or fail("+cuda does not ask for starpu+cuda")
("starpu+mpi", "+mpi") in deps or fail("+mpi does not ask for starpu+mpi")

pkg = cls()
pkg.spec = FakeSpec({"cuda"})
args = pkg.cmake_args()
"-DSTARPU_PREFIX=/opt/starpu" in args or fail("cmake_args lacks STARPU_PREFIX: %s" % args)
"-DSTARZK_CUDA=ON" in args or fail("cmake_args lacks STARZK_CUDA=ON with +cuda: %s" % args)
"-DCMAKE_CUDA_ARCHITECTURES=90" in args or fail("cmake_args lacks the CUDA architecture: %s" % args)
pkg.spec = FakeSpec(set())
"-DSTARZK_CUDA=OFF" in pkg.cmake_args() or fail("cmake_args lacks STARZK_CUDA=OFF with ~cuda")
print("spack_recipe_check: package.py loads; variants, dependencies and cmake_args as expected")
