# starzk_check_starpu_features(CONFIG_H CORES STARZK_CUDA): what the StarPU
# whose starpu_config.h is CONFIG_H can do for starzk (see cmake/starpu.cmake
# for why each matters):
#   STARPU_MAXCPUS missing or below 2  -> FATAL_ERROR (starzk cannot run)
#   STARPU_MAXCPUS below CORES         -> WARNING (--cpus above it is capped)
#   no STARPU_USE_CUDA, STARZK_CUDA on -> WARNING (every task on the CPU)
# Sets STARZK_STARPU_MAXCPUS and STARZK_STARPU_CUDA (ON/OFF) in the caller.
# A function of its own so that tests/install/starpu_features_test.cmake
# can run it in script mode on made-up headers.
function(starzk_check_starpu_features config_h cores starzk_cuda)
  file(STRINGS "${config_h}" _maxcpus REGEX "^#define STARPU_MAXCPUS [0-9]+")
  string(REGEX REPLACE ".* ([0-9]+)$" "\\1" maxcpus "${_maxcpus}")
  file(STRINGS "${config_h}" _cuda REGEX "^#define STARPU_USE_CUDA 1")
  if(_cuda)
    set(cuda ON)
  else()
    set(cuda OFF)
  endif()
  if(NOT maxcpus OR maxcpus LESS 2)
    message(FATAL_ERROR "starzk: ${config_h}: STARPU_MAXCPUS is '${maxcpus}': starzk needs a StarPU of at least "
                        "2 CPU workers (configure StarPU with --enable-maxcpus=128)")
  endif()
  if(maxcpus LESS cores)
    message(WARNING "starzk: this StarPU caps CPU workers at STARPU_MAXCPUS=${maxcpus}, but this machine has "
                    "${cores} cores: `--cpus N` above ${maxcpus} will run ${maxcpus} workers. Rebuild StarPU "
                    "with --enable-maxcpus=${cores} or more (scripts/setup.sh uses 128).")
  endif()
  if(starzk_cuda AND NOT cuda)
    message(WARNING "starzk: CUDA kernels are on, but this StarPU was built without CUDA (no STARPU_USE_CUDA): "
                    "every task will run on the CPU. Use a StarPU configured with CUDA (scripts/setup.sh).")
  endif()
  set(STARZK_STARPU_MAXCPUS ${maxcpus} PARENT_SCOPE)
  set(STARZK_STARPU_CUDA ${cuda} PARENT_SCOPE)
endfunction()
