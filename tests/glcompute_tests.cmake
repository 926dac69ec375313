# glcompute tests: the SA-LAP compute-shader backend (gl/salap_glcompute.cpp). They need an
# OpenGL 4.5 context (compute shaders); each test skips with the reason when there is none.
# Included by tests/CMakeLists.txt when STEREO_WITH_GL.
add_executable(stereo_glcompute_tests
  ${CMAKE_CURRENT_LIST_DIR}/test_glcompute_salap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_glcompute_scenes.cpp
)
target_link_libraries(stereo_glcompute_tests PRIVATE stereo_methods stereo_reference stereo_gl GTest::gtest_main)
stereo_warnings(stereo_glcompute_tests)
gtest_discover_tests(stereo_glcompute_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gl)
