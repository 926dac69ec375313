# stereo_add_method(): how a method joins the build. One call in methods/<folder>/CMakeLists.txt
# (docs/architecture.md, "Adding a method") and one add_subdirectory line in methods/CMakeLists.txt.
#
#   stereo_add_method(<folder>
#     [REGISTERS <name>...]   registry names the folder registers (default: <folder>)
#     [CPU <src>...]          reference stages and the cpu matcher     -> stereo_reference
#     [GL <src>...]           GL passes and matchers (with STEREO_WITH_GL) -> stereo_gl
#     [SHADERS <file>...]     GLSL files embedded for gl::shader_source() (with STEREO_WITH_GL)
#     [CUDA <src>...]         CUDA stages and matcher (when CUDA is enabled) -> stereo_cuda
#     [OPENCV <src>...]       a peer on OpenCV (when OpenCV is found)  -> stereo_opencv
#     [TESTS_CPU <src>...]    GoogleTest sources of stereo_tests
#     [TESTS_GL <src>...]     ... of stereo_gl_tests (with STEREO_WITH_GL)
#     [TESTS_CUDA <src>...]   ... of stereo_cuda_tests (when CUDA is enabled)
#     [TEST_CASES <src>]      the cases the generic tests under tests/ run for this folder's
#                             methods (tests/method_cases.h): defines declare_<folder>_cases
#     [DEFINES <def>...])     definitions for register.cpp beyond the build's STEREO_WITH_*
#
# A folder's include/stereo/<folder>.h, where it has one, is its public header (the typed Params,
# stereo/<method>.h): on every layer's include path and installed with include/stereo/.
#
# The folder's info.cpp (the paper's description) and register.cpp (register_<folder>, which adds
# it and each backend this build has) go to stereo_methods; build/generated/methods/builtin.cpp, generated once
# every folder is added, calls register_<folder> for each. Explicit calls rather than static
# self-registration: an object file of a static library that nothing references is never linked,
# so a self-registering backend would silently vanish. The test sources are collected here and
# given to the test executables by tests/CMakeLists.txt; the manifest written at the end
# (stereo_write_method_manifest) lets a test check that every registered method has its tests
# and its docs page.

include(GNUInstallDirs)  # CMAKE_INSTALL_INCLUDEDIR for the methods' public headers

function(stereo_add_method folder)
  cmake_parse_arguments(PARSE_ARGV 1 M "" ""
                        "REGISTERS;CPU;GL;SHADERS;CUDA;OPENCV;TESTS_CPU;TESTS_GL;TESTS_CUDA;TEST_CASES;DEFINES")
  if(M_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "stereo_add_method(${folder}): unknown arguments ${M_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT M_REGISTERS)
    set(M_REGISTERS ${folder})
  endif()
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  list(TRANSFORM M_CPU PREPEND ${dir}/)
  list(TRANSFORM M_GL PREPEND ${dir}/)
  list(TRANSFORM M_SHADERS PREPEND ${dir}/)
  list(TRANSFORM M_CUDA PREPEND ${dir}/)
  list(TRANSFORM M_OPENCV PREPEND ${dir}/)
  list(TRANSFORM M_TESTS_CPU PREPEND ${dir}/)
  list(TRANSFORM M_TESTS_GL PREPEND ${dir}/)
  list(TRANSFORM M_TESTS_CUDA PREPEND ${dir}/)
  list(TRANSFORM M_TEST_CASES PREPEND ${dir}/)

  target_sources(stereo_methods PRIVATE ${dir}/info.cpp ${dir}/register.cpp)
  # The method's public header, include/stereo/<folder>.h (its typed Params and their create()):
  # seen by every layer as "stereo/<folder>.h", installed beside stereo/stereo.h.
  if(EXISTS ${dir}/include/stereo)
    target_include_directories(stereo_core PUBLIC $<BUILD_INTERFACE:${dir}/include>)
    install(DIRECTORY ${dir}/include/stereo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
  if(M_DEFINES)
    set_property(SOURCE ${dir}/register.cpp APPEND PROPERTY COMPILE_DEFINITIONS ${M_DEFINES})
  endif()
  if(M_CPU)
    target_sources(stereo_reference PRIVATE ${M_CPU})
  endif()
  if(STEREO_WITH_GL)
    if(M_GL)
      target_sources(stereo_gl PRIVATE ${M_GL})
    endif()
    set_property(GLOBAL APPEND PROPERTY STEREO_SHADERS ${M_SHADERS})
    set_property(GLOBAL APPEND PROPERTY STEREO_TESTS_GL ${M_TESTS_GL})
  endif()
  if(STEREO_CUDA_ENABLED)
    if(M_CUDA)
      target_sources(stereo_cuda PRIVATE ${M_CUDA})
    endif()
    set_property(GLOBAL APPEND PROPERTY STEREO_TESTS_CUDA ${M_TESTS_CUDA})
  endif()
  if(M_OPENCV AND TARGET stereo_opencv)
    target_sources(stereo_opencv PRIVATE ${M_OPENCV})
  endif()
  set_property(GLOBAL APPEND PROPERTY STEREO_TESTS_CPU ${M_TESTS_CPU})
  set_property(GLOBAL APPEND PROPERTY STEREO_METHOD_FOLDERS ${folder})
  if(M_TEST_CASES)
    set_property(GLOBAL APPEND PROPERTY STEREO_TEST_CASES ${M_TEST_CASES})
    set_property(GLOBAL APPEND PROPERTY STEREO_TEST_CASE_FOLDERS ${folder})
  endif()

  # The manifest row: folder | names | test files per executable (names only, for the check).
  list(JOIN M_REGISTERS " " registers)
  set(row "${folder}|${registers}|")
  foreach(kind CPU GL CUDA)
    set(names "")
    foreach(t IN LISTS M_TESTS_${kind})
      get_filename_component(n ${t} NAME)
      list(APPEND names ${n})
    endforeach()
    list(JOIN names " " names)
    string(APPEND row "${names}|")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY STEREO_METHOD_MANIFEST "${row}")
endfunction()

# Writes build/generated/methods/builtin.cpp (one register_<folder> call per stereo_add_method) and the manifest
# the layout test reads. Called by methods/CMakeLists.txt after its add_subdirectory lines.
function(stereo_finish_methods)
  get_property(folders GLOBAL PROPERTY STEREO_METHOD_FOLDERS)
  set(STEREO_METHOD_DECLARATIONS "")
  set(STEREO_METHOD_CALLS "")
  foreach(folder IN LISTS folders)
    string(APPEND STEREO_METHOD_DECLARATIONS "void register_${folder}(Registry& registry);  // methods/${folder}/register.cpp\n")
    string(APPEND STEREO_METHOD_CALLS "    register_${folder}(r);\n")
  endforeach()
  set(out ${CMAKE_BINARY_DIR}/generated/methods/builtin.cpp)
  configure_file(${CMAKE_SOURCE_DIR}/methods/builtin.cpp.in ${out} @ONLY)
  target_sources(stereo_methods PRIVATE ${out})

  # build/generated/tests/method_cases.cpp: one declare_<folder>_cases call per folder with TEST_CASES; the test
  # executables take it with the cases files (STEREO_TEST_CASES, tests/CMakeLists.txt).
  get_property(case_folders GLOBAL PROPERTY STEREO_TEST_CASE_FOLDERS)
  set(STEREO_CASE_DECLARATIONS "")
  set(STEREO_CASE_CALLS "")
  foreach(folder IN LISTS case_folders)
    string(APPEND STEREO_CASE_DECLARATIONS "void declare_${folder}_cases(MethodCases& cases);  // methods/${folder}/tests\n")
    string(APPEND STEREO_CASE_CALLS "    declare_${folder}_cases(c);\n")
  endforeach()
  configure_file(${CMAKE_SOURCE_DIR}/tests/method_cases.cpp.in ${CMAKE_BINARY_DIR}/generated/tests/method_cases.cpp @ONLY)

  get_property(manifest GLOBAL PROPERTY STEREO_METHOD_MANIFEST)
  file(WRITE ${CMAKE_BINARY_DIR}/generated/method_manifest.txt.tmp
       "# folder|registered names|cpu tests|gl tests|cuda tests (space-separated)\n")
  foreach(row IN LISTS manifest)
    file(APPEND ${CMAKE_BINARY_DIR}/generated/method_manifest.txt.tmp "${row}\n")
  endforeach()
  file(COPY_FILE ${CMAKE_BINARY_DIR}/generated/method_manifest.txt.tmp
       ${CMAKE_BINARY_DIR}/generated/method_manifest.txt ONLY_IF_DIFFERENT)
endfunction()
