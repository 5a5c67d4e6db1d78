# Finding StarPU and checking that it can run starzk well.
#
# StarPU 1.3 (what CI builds against: 1.3.10, scripts/setup.sh) or 1.4 (the
# version Spack installs by default) is found through pkg-config in the
# prefix STARPU_PREFIX names (cache, environment, or the .starzk-env file
# scripts/setup.sh writes), else in the usual places. StarPU-MPI is looked
# for in the same version. Then starpu_config.h is read for what starzk
# relies on:
#   - STARPU_MAXCPUS: StarPU never starts more CPU workers than this, so a
#     build with a small one (Debian's libstarpu-dev has 4) silently runs
#     `--cpus 8` on 4 workers. Fewer than 2 is refused; fewer than this
#     machine's cores is a loud warning (the prover machines have more).
#   - STARPU_USE_CUDA: without it the GPU codelet bodies never run, whatever
#     starzk compiled; a warning when starzk's own CUDA kernels are on.
# (The checks are cmake/starpu_features.cmake, tested on made-up headers by
# tests/install/starpu_features_test.cmake.) Sets STARPU_PREFIX (cache),
# STARZK_STARPU_API ("1.3" or "1.4"), STARZK_STARPU_MAXCPUS,
# STARZK_STARPU_CUDA, and the PkgConfig::STARPU(/STARPUMPI) targets.
if(NOT STARPU_PREFIX)
  if(DEFINED ENV{STARPU_PREFIX})
    set(STARPU_PREFIX "$ENV{STARPU_PREFIX}")
  elseif(EXISTS "${PROJECT_SOURCE_DIR}/.starzk-env")
    file(STRINGS "${PROJECT_SOURCE_DIR}/.starzk-env" _env REGEX "^STARPU_PREFIX=")
    string(REPLACE "STARPU_PREFIX=" "" STARPU_PREFIX "${_env}")
  endif()
endif()
set(STARPU_PREFIX "${STARPU_PREFIX}" CACHE PATH "StarPU 1.3 or 1.4 install prefix")
if(STARPU_PREFIX)
  list(PREPEND CMAKE_PREFIX_PATH "${STARPU_PREFIX}")
  set(ENV{PKG_CONFIG_PATH} "${STARPU_PREFIX}/lib/pkgconfig:${STARPU_PREFIX}/lib64/pkgconfig:$ENV{PKG_CONFIG_PATH}")
endif()

pkg_search_module(STARPU IMPORTED_TARGET starpu-1.3 starpu-1.4)
if(NOT STARPU_FOUND)
  message(FATAL_ERROR "starzk: StarPU 1.3 or 1.4 not found through pkg-config (starpu-1.3.pc / starpu-1.4.pc). "
                      "Run scripts/setup.sh, or pass -DSTARPU_PREFIX=<StarPU install prefix>.")
endif()
string(REGEX MATCH "^[0-9]+\\.[0-9]+" STARZK_STARPU_API "${STARPU_VERSION}")
pkg_search_module(STARPUMPI IMPORTED_TARGET starpumpi-${STARZK_STARPU_API})
if(NOT STARPU_PREFIX)
  # Record where it came from: the installed binary's run path names it.
  pkg_get_variable(_starpu_prefix starpu-${STARZK_STARPU_API} prefix)
  set(STARPU_PREFIX "${_starpu_prefix}" CACHE PATH "StarPU 1.3 or 1.4 install prefix" FORCE)
endif()

# ---- what this StarPU was configured with -----------------------------------
find_file(STARZK_STARPU_CONFIG_H starpu_config.h PATHS ${STARPU_INCLUDE_DIRS} NO_DEFAULT_PATH)
if(NOT STARZK_STARPU_CONFIG_H)
  message(FATAL_ERROR "starzk: StarPU ${STARPU_VERSION} found, but not its starpu_config.h (in ${STARPU_INCLUDE_DIRS})")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/starpu_features.cmake)
cmake_host_system_information(RESULT _cores QUERY NUMBER_OF_LOGICAL_CORES)
starzk_check_starpu_features("${STARZK_STARPU_CONFIG_H}" ${_cores} "${STARZK_HAVE_CUDA}")
message(STATUS "starzk: StarPU ${STARPU_VERSION} in ${STARPU_PREFIX}: STARPU_MAXCPUS ${STARZK_STARPU_MAXCPUS}, "
               "CUDA ${STARZK_STARPU_CUDA}, MPI ${STARPUMPI_FOUND}")
if(NOT STARZK_STARPU_API STREQUAL "1.3")
  message(STATUS "starzk: StarPU ${STARPU_VERSION}: CI builds against 1.3.10; 1.4 is accepted (docs/install.md)")
endif()
