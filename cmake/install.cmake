# `cmake --install build --prefix P`: what an HPC centre installs.
#
#   P/bin/starzk                                   the command line
#   P/lib/libstarzk_policies.so.0                  the scheduling policies (any StarPU program)
#   P/lib/starzk/libstarzk_policy_plugin_example.so  the example policy plug-in (--policy-plugin)
#   P/include/starzk/policies/*.h                  the policies' public C headers and the plug-in header
#   P/lib/cmake/starzk/                            find_package(starzk) -> starzk::policies
#   P/lib/pkgconfig/starzk-policies.pc             pkg-config --cflags --libs starzk-policies
#   P/share/man/man1/starzk.1, P/share/doc/starzk/ the man page, the docs and the example sources
#   P/share/starzk/slurm/                          the Slurm batch scripts
#   P/share/modulefiles/starzk/VERSION.lua         an Lmod modulefile (packaging/lmod/starzk.lua)
#
# The prefix may move after installation: the binary and the libraries find
# each other through $ORIGIN-relative run paths, and StarPU (and the CUDA
# runtime) through the absolute run paths of the prefixes they were linked
# from; the CMake package and the .pc file compute the prefix from their own
# location. Consumers include "policies/starzk_policies.h", as in the tree.
include(CMakePackageConfigHelpers)

# Run paths: CMAKE_INSTALL_RPATH (top CMakeLists.txt) for the binary; the
# libraries' own folder for the policies library and the plug-in.
set_target_properties(starzk_policies PROPERTIES INSTALL_RPATH "\$ORIGIN;${STARPU_PREFIX}/lib" EXPORT_NAME policies)
set_target_properties(starzk_policy_plugin_example PROPERTIES INSTALL_RPATH "\$ORIGIN/..;${STARPU_PREFIX}/lib")

set(STARZK_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/starzk")
set(STARZK_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/starzk")

install(TARGETS starzk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS starzk_policies EXPORT starzkTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${STARZK_INSTALL_INCLUDEDIR})
install(TARGETS starzk_policy_plugin_example LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/starzk)
install(FILES policies/starzk_policies.h policies/starzk_plugin.h policies/starzk_components.h policies/resource_class.h
        DESTINATION ${STARZK_INSTALL_INCLUDEDIR}/policies)

# find_package(starzk): the policies library as starzk::policies; StarPU is
# found again through pkg-config, first in the prefix this was built with.
install(EXPORT starzkTargets NAMESPACE starzk:: DESTINATION ${STARZK_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/starzkConfig.cmake.in "${PROJECT_BINARY_DIR}/starzkConfig.cmake"
                              INSTALL_DESTINATION ${STARZK_INSTALL_CMAKEDIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/starzkConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/starzkConfig.cmake" "${PROJECT_BINARY_DIR}/starzkConfigVersion.cmake"
        DESTINATION ${STARZK_INSTALL_CMAKEDIR})

# pkg-config, relocatable: the prefix is two folders above the .pc file.
file(RELATIVE_PATH _pc_to_prefix "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
set(STARZK_PC_PREFIX "\${pcfiledir}/${_pc_to_prefix}")
string(REGEX REPLACE "/$" "" STARZK_PC_PREFIX "${STARZK_PC_PREFIX}")
configure_file(cmake/starzk-policies.pc.in "${PROJECT_BINARY_DIR}/starzk-policies.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/starzk-policies.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Slurm scripts (slurm/common.sh finds starzk on PATH) and the Lmod
# modulefile, which locates the prefix from its own path.
install(PROGRAMS slurm/prove-node.sbatch slurm/prove-array.sbatch slurm/prove-mpi.sbatch slurm/rank.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/starzk/slurm)
install(FILES slurm/common.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/starzk/slurm)
set(STARZK_VERSION ${PROJECT_VERSION})
set(STARZK_MODULE_PREFIX "")
configure_file(packaging/lmod/starzk.lua "${PROJECT_BINARY_DIR}/starzk-module.lua" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/starzk-module.lua" DESTINATION ${CMAKE_INSTALL_DATADIR}/modulefiles/starzk
        RENAME ${PROJECT_VERSION}.lua)

# The man page and the documentation, with the plug-in example's sources.
install(FILES docs/starzk.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES policies/examples/plugin_example.c policies/examples/mini_serial_free.c
              policies/examples/mini_serial_free.h policies/examples/minimal_policy.c
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/policies)
