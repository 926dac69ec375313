# CUDA tests (need a CUDA device; every test skips with the reason when there is none, so CI
# without a GPU passes). Included by tests/CMakeLists.txt when the CUDA backends are built.
add_executable(stereo_cuda_tests
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_salap_stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_salap_matcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_foundation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_adcensus_stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_adcensus_matcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_crossrt_stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_crossrt_matcher.cpp
  # SymStereo's CUDA tests compare with the FFTW reference, so they need it too.
  $<$<BOOL:${STEREO_FFTW_ENABLED}>:${CMAKE_CURRENT_LIST_DIR}/test_cuda_symstereo_stages.cpp>
  $<$<BOOL:${STEREO_FFTW_ENABLED}>:${CMAKE_CURRENT_LIST_DIR}/test_cuda_symstereo_matcher.cpp>
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_esaw_stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_esaw_matcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_salap_stream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_hostile.cpp
)
target_link_libraries(stereo_cuda_tests PRIVATE stereo_methods stereo_reference stereo_cuda GTest::gtest_main)
stereo_warnings(stereo_cuda_tests)
# test_cuda_foundation.cpp runs the driver for --device.
target_compile_definitions(stereo_cuda_tests PRIVATE STEREO_BIN="$<TARGET_FILE:stereo>")
add_dependencies(stereo_cuda_tests stereo)
gtest_discover_tests(stereo_cuda_tests DISCOVERY_TIMEOUT 60 TEST_FILTER "-*DeviceMemory*" PROPERTIES LABELS cuda)
# Tests named *DeviceMemory* compare the device-wide free memory (cudaMemGetInfo) at two
# points: another test process allocating in between (ctest -j) would fail them, so they run
# alone.
gtest_discover_tests(stereo_cuda_tests DISCOVERY_TIMEOUT 60 TEST_FILTER "*DeviceMemory*"
                     PROPERTIES LABELS cuda RUN_SERIAL TRUE)
