# Installation: `cmake --install <build> --prefix P` puts
#   P/include/netasic/{tlm,tb}/...      the model's, blocks', common and testbench headers
#   P/lib/libnetasic_*.a                the libraries
#   P/bin/netasic                       the command line
#   P/share/netasic/                    what the binary reads or runs (synthesis scripts and RTL, plot script,
#                                       example configurations and flow-size CDFs)
#   P/lib/cmake/netasic/                the CMake package: find_package(netasic) gives netasic::netasic
include(CMakePackageConfigHelpers)

# netasic::netasic: the model and the testbench libraries (with what they link), for a user's own program.
add_library(netasic_library INTERFACE)
set_target_properties(netasic_library PROPERTIES EXPORT_NAME netasic)
target_link_libraries(netasic_library INTERFACE netasic_tb netasic_model)
add_library(netasic::netasic ALIAS netasic_library)

set(netasic_exported netasic_library netasic_tb netasic_inputs netasic_model netasic_blocks netasic_common
    netasic_warnings)
if(TARGET netasic_cosim)
  # The RTL co-simulation blocks (NETASIC_RTL builds) are part of the testbench library. Their Verilated
  # models' include directories are in the build tree and the SystemC target Verilator defines is its own:
  # neither is needed to link the installed libraries, so both stay build-only.
  foreach(prop INTERFACE_INCLUDE_DIRECTORIES INTERFACE_LINK_LIBRARIES)
    get_target_property(items netasic_cosim_models ${prop})
    if(items)
      set(wrapped "")
      foreach(item IN LISTS items)
        if(item MATCHES "^Verilator::" OR item MATCHES "^/")
          list(APPEND wrapped "$<BUILD_INTERFACE:${item}>")
        else()
          list(APPEND wrapped "${item}")
        endif()
      endforeach()
      set_target_properties(netasic_cosim_models PROPERTIES ${prop} "${wrapped}")
    endif()
  endforeach()
  list(APPEND netasic_exported netasic_cosim netasic_cosim_models)
endif()

install(TARGETS ${netasic_exported} EXPORT netasicTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS netasic RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(dir tlm/common tlm/blocks tlm/model tb)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/netasic/${dir}
          FILES_MATCHING PATTERN "*.h")
endforeach()

set(netasic_share ${CMAKE_INSTALL_DATADIR}/netasic)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs DESTINATION ${netasic_share})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/synth-scripts DESTINATION ${netasic_share} USE_SOURCE_PERMISSIONS
        PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/rtl DESTINATION ${netasic_share}
        FILES_MATCHING PATTERN "*.sv" PATTERN "*.svh" PATTERN "*.v")
install(FILES ${PROJECT_SOURCE_DIR}/tb/sizing/plot.py DESTINATION ${netasic_share}/tb/sizing)

set(netasic_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/netasic)
install(EXPORT netasicTargets NAMESPACE netasic:: DESTINATION ${netasic_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/netasicConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/netasicConfig.cmake INSTALL_DESTINATION ${netasic_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/netasicConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/netasicConfig.cmake ${PROJECT_BINARY_DIR}/netasicConfigVersion.cmake
        DESTINATION ${netasic_cmake_dir})
