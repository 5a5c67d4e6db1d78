# The StarPU feature checks of the configure step (cmake/starpu_features.cmake)
# on made-up starpu_config.h files, each run in a child `cmake -P` so that a
# FATAL_ERROR or WARNING can be observed:
#   Debian-like (MAXCPUS 4, no CUDA) on 8 cores with CUDA kernels: two warnings, no error;
#   ours (MAXCPUS 128, CUDA) on 8 cores: silent;
#   MAXCPUS 1, and no MAXCPUS at all: refused.
# Usage: cmake -DSOURCE_DIR=... -DWORK_DIR=... -P starpu_features_test.cmake
if(NOT CASE)
  file(MAKE_DIRECTORY "${WORK_DIR}")
  function(run_case name header expect_rc expect_text forbid_text)
    file(WRITE "${WORK_DIR}/${name}.h" "${header}")
    execute_process(COMMAND ${CMAKE_COMMAND} -DCASE=${name} -DSOURCE_DIR=${SOURCE_DIR} -DWORK_DIR=${WORK_DIR}
                            -P ${CMAKE_CURRENT_LIST_FILE}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL expect_rc)
      message(FATAL_ERROR "${name}: exit ${rc}, expected ${expect_rc}:\n${out}")
    endif()
    foreach(t IN LISTS expect_text)
      string(FIND "${out}" "${t}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${name}: no '${t}' in:\n${out}")
      endif()
    endforeach()
    if(forbid_text)
      string(FIND "${out}" "${forbid_text}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "${name}: '${forbid_text}' in:\n${out}")
      endif()
    endif()
    message(STATUS "starpu_features_test: ${name}: as expected")
  endfunction()
  run_case(debian "#define STARPU_MAXCPUS 4\n" 0 "STARPU_MAXCPUS=4;built without CUDA;maxcpus=4 cuda=OFF" "")
  run_case(ours "#define STARPU_MAXCPUS 128\n#define STARPU_USE_CUDA 1\n" 0 "maxcpus=128 cuda=ON" "Warning")
  run_case(one_cpu "#define STARPU_MAXCPUS 1\n" 1 "STARPU_MAXCPUS is '1'" "")
  run_case(no_maxcpus "#define STARPU_USE_CUDA 1\n" 1 "STARPU_MAXCPUS is ''" "")
  return()
endif()
include("${SOURCE_DIR}/cmake/starpu_features.cmake")
starzk_check_starpu_features("${WORK_DIR}/${CASE}.h" 8 ON)
message(STATUS "maxcpus=${STARZK_STARPU_MAXCPUS} cuda=${STARZK_STARPU_CUDA}")
