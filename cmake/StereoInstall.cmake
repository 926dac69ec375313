# The installed library (docs/architecture.md, "The library"): `cmake --install` puts the public
# headers (include/stereo/, which include only each other and the standard library), the static
# libraries of the layers this build has, the `stereo` program, a CMake package
# (find_package(stereo CONFIG) -> stereo::stereo, its dependencies found again for the consumer
# by stereo-config.cmake) and a pkg-config file (stereo.pc) into the prefix.
#
# Layout under the prefix:
#   include/stereo/*.h         what a consumer includes (<stereo/stereo.h>, <stereo/io.h>,
#                              <stereo/data.h>, <stereo/testing.h>) and each method's typed
#                              parameters (<stereo/adcensus.h>, installed by stereo_add_method);
#                              no core, backend, CLI or report header
#   lib/libstereo_*.a          core, data, methods and the backends built
#   lib/cmake/stereo/          stereo-config.cmake, -version, -targets
#   lib/pkgconfig/stereo.pc
#   bin/stereo
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STEREO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/stereo)

# stereo::stereo: everything a consumer links, as one target. An INTERFACE library over the
# static ones (the `stereo` program already has the target name `stereo`).
add_library(stereo_library INTERFACE)
set_target_properties(stereo_library PROPERTIES EXPORT_NAME stereo)
target_include_directories(stereo_library INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(stereo_library INTERFACE stereo_methods stereo_data)
add_library(stereo::stereo ALIAS stereo_library)

set(stereo_installed_libraries stereo_core stereo_data stereo_methods ${STEREO_BACKEND_LIBS})
foreach(lib IN LISTS stereo_installed_libraries)
  string(REPLACE "stereo_" "" short ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${short})  # stereo::core, stereo::cuda, ...
endforeach()
install(TARGETS ${stereo_installed_libraries} stereo_library EXPORT stereo-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS stereo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT stereo-targets NAMESPACE stereo:: DESTINATION ${STEREO_INSTALL_CMAKEDIR})

# The public headers (tests/test_install.sh reads the preprocessor's include list of each
# installed header: only include/stereo/ and the standard library).
install(DIRECTORY include/stereo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# What the consumer's find_package must find again: the libraries the static ones need.
set(STEREO_OPENCV_BY_CONFIG OFF)
if(OpenCV_FOUND AND OpenCV_DIR)
  set(STEREO_OPENCV_BY_CONFIG ON)
endif()
set(STEREO_FFTW3F_LIBRARY "")
if(STEREO_FFTW_ENABLED)
  set(STEREO_FFTW3F_LIBRARY ${FFTW3F_LIBRARY})
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/stereo-config.cmake.in
                              ${PROJECT_BINARY_DIR}/package/stereo-config.cmake
                              INSTALL_DESTINATION ${STEREO_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/stereo-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/stereo-config.cmake ${PROJECT_BINARY_DIR}/package/stereo-config-version.cmake
        DESTINATION ${STEREO_INSTALL_CMAKEDIR})

# pkg-config: Libs lists the project's static libraries in link order (methods before the
# backends they register, core last); Libs.private what they need, as -l flags and paths.
set(stereo_pc_libs "-lstereo_methods -lstereo_data")
foreach(lib IN LISTS STEREO_BACKEND_LIBS)
  string(APPEND stereo_pc_libs " -l${lib}")
endforeach()
string(APPEND stereo_pc_libs " -lstereo_core")
set(stereo_pc_private "${STB_LIBRARY} -lpng -lz")
if(STEREO_FFTW_ENABLED)
  string(APPEND stereo_pc_private " ${FFTW3F_LIBRARY}")
endif()
if(OpenCV_FOUND)
  foreach(lib IN LISTS OpenCV_LIBS)
    if(TARGET ${lib})
      string(APPEND stereo_pc_private " -l${lib}")
    else()
      string(APPEND stereo_pc_private " ${lib}")
    endif()
  endforeach()
endif()
if(STEREO_WITH_GL)
  string(APPEND stereo_pc_private " -lGLEW -lglfw -lEGL -lOpenGL")
endif()
if(STEREO_CUDA_ENABLED)
  string(APPEND stereo_pc_private " -L${CUDAToolkit_LIBRARY_DIR} -lcufft -lcudart")
endif()
string(APPEND stereo_pc_private " -lpthread -ldl")
# The prefix relative to the .pc file (${pcfiledir}), so that `cmake --install --prefix` anywhere
# gives a file that points into its own tree.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  message(FATAL_ERROR "stereo: CMAKE_INSTALL_LIBDIR must be relative to the prefix, got ${CMAKE_INSTALL_LIBDIR}")
endif()
file(RELATIVE_PATH stereo_pc_prefix /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" stereo_pc_prefix "${stereo_pc_prefix}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/stereo.pc.in ${PROJECT_BINARY_DIR}/package/stereo.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/stereo.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
