-- starzk.lua: Lmod modulefile template for a starzk install
-- (cmake --install build --prefix PREFIX). The install fills the @...@
-- fields and puts it at PREFIX/share/modulefiles/starzk/<version>.lua, so
-- `module use PREFIX/share/modulefiles; module load starzk` works, and it
-- finds PREFIX from its own place (the prefix may move). A centre may
-- instead copy it into its MODULEPATH and write the prefix in. It puts the
-- binary, the man page, the CMake package and the pkg-config file of the
-- policies library on the usual paths; StarPU is found through the run
-- paths the install carries, so no StarPU module has to be loaded, but
-- `starpu_prefix` is set for sites that want StarPU's own tools too.
-- tests/install/packaging_check.sh loads it with Lmod when Lmod is present.
whatis("Name: starzk")
whatis("Version: @STARZK_VERSION@")
whatis("Description: Groth16 proofs over BLS12-381 as a StarPU task DAG (CPU cores and CUDA GPUs)")
help([[
starzk: Groth16 proofs over BLS12-381 (snarkjs .zkey, bellman/Filecoin .params).
  starzk prove --manifest jobs.toml     a batch (resumes from its journal)
  starzk verify --vkey porep.vk --proof proof.bin --public public.json
  man starzk; $STARZK_DOC/slurm.md for the Slurm scripts in $STARZK_SLURM_DIR.
]])

local prefix = os.getenv("STARZK_MODULE_PREFIX") or "@STARZK_MODULE_PREFIX@"
if prefix:sub(1, 1) ~= "/" then
  -- No prefix written in: PREFIX/share/modulefiles/starzk/<version>.lua
  prefix = myFileName():gsub("/share/modulefiles/starzk/[^/]*$", "")
end
local starpu_prefix = "@STARPU_PREFIX@"

prepend_path("PATH", pathJoin(prefix, "bin"))
prepend_path("MANPATH", pathJoin(prefix, "share/man"))
prepend_path("CMAKE_PREFIX_PATH", prefix)
prepend_path("PKG_CONFIG_PATH", pathJoin(prefix, "lib/pkgconfig"))
if starpu_prefix:sub(1, 1) == "/" then
  prepend_path("PKG_CONFIG_PATH", pathJoin(starpu_prefix, "lib/pkgconfig"))
end
setenv("STARZK_ROOT", prefix)
setenv("STARZK_DOC", pathJoin(prefix, "share/doc/starzk"))
setenv("STARZK_SLURM_DIR", pathJoin(prefix, "share/starzk/slurm"))
setenv("STARZK_POLICY_PLUGIN_DIR", pathJoin(prefix, "lib/starzk"))
