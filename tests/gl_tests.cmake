# GL tests (need an OpenGL 4.5 context; each test skips with the reason when there is none).
# Included by tests/CMakeLists.txt when STEREO_WITH_GL.
add_executable(stereo_gl_tests
  ${CMAKE_CURRENT_LIST_DIR}/test_gl_objects.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_gl_salap_stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_gl_salap_scenes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_gl_context.cpp
)
target_link_libraries(stereo_gl_tests PRIVATE stereo_methods stereo_reference stereo_gl GTest::gtest_main)
stereo_warnings(stereo_gl_tests)
gtest_discover_tests(stereo_gl_tests DISCOVERY_TIMEOUT 60 TEST_FILTER "-*Glfw*:GlContextChild.*" PROPERTIES LABELS gl)
# GlContextChild.* only runs as the child process of the platform tests (test_gl_context.cpp).
# The GLFW platform test needs a display: scripts/test.sh runs label glfw under xvfb-run -a
# (ctest -L takes a regex, so -L gl still selects it).
gtest_discover_tests(stereo_gl_tests DISCOVERY_TIMEOUT 60 TEST_FILTER "*Glfw*" PROPERTIES LABELS glfw)
