# Small helpers that keep the module and test CMakeLists short.

# sieve_set_warnings(<target>): our warning set, PRIVATE, never on consumers.
function(sieve_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow)
  if(SIEVE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    # GCC 12 at -O3 reports -Wrestrict inside libstdc++ for `"a" + std::to_string(i)` (GCC bug
    # 105329, fixed in GCC 13): a false positive in the standard library, not in our code.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE -Wno-error=restrict)
    endif()
  endif()
endfunction()

# sieve_add_library(<module> [DIR <dir>] SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...]
#                   [NOT_INSTALLED <subdir> ...])
# Creates target sieve_<module>, alias sieve::<module>, exported as sieve::<module>. Headers are
# included from the repository root ("filter/bloom_filter.h") and installed under include/<dir>/;
# <dir> is the module's directory from the root, <module> unless given (DIR frontier/cluster for a
# library in a subdirectory of another module). NOT_INSTALLED names subdirectories whose headers
# stay in the tree (a library there that is not part of the installed package).
function(sieve_add_library module)
  cmake_parse_arguments(ARG "" "DIR" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS;NOT_INSTALLED" ${ARGN})
  if(NOT ARG_DIR)
    set(ARG_DIR ${module})
  endif()
  set(target sieve_${module})
  add_library(${target} ${ARG_SOURCES})
  add_library(sieve::${module} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${module} OUTPUT_NAME sieve_${module})
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  sieve_set_warnings(${target})
  set_property(GLOBAL APPEND PROPERTY SIEVE_LIBRARIES ${target})
  install(TARGETS ${target} EXPORT sieveTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(excluded)
  foreach(subdir ${ARG_NOT_INSTALLED})
    list(APPEND excluded PATTERN ${subdir} EXCLUDE)
  endforeach()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${ARG_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${ARG_DIR}
    FILES_MATCHING PATTERN "*.h" ${excluded})
endfunction()

# sieve_add_test(<name> SOURCES ... [LIBS ...] [LABELS ...] [TIMEOUT s])
# One executable, one ctest entry, linked with tests/common (sieve_test_common). Labels: unit,
# integration (loopback servers), slow, tsan, and the module name. A binary in which no test
# passed and at least one skipped (GoogleTest's summary "[  PASSED  ] 0 tests" beside
# "[  SKIPPED ]") is reported by ctest as skipped, not passed: SIEVE_SKIP_REGEX.
function(sieve_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} sieve_test_common GTest::gmock
    GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  sieve_set_warnings(${name})
  add_test(NAME ${name} COMMAND ${name})
  sieve_skip_when_nothing_passed(${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  if("tsan" IN_LIST ARG_LABELS)
    add_dependencies(tsan_tests ${name})
  endif()
  set_tests_properties(${name} PROPERTIES
    LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
    ENVIRONMENT "SIEVE_SHARED_TESTDATA=${PROJECT_SOURCE_DIR}/../shared/testdata")
endfunction()

# GoogleTest's last lines when no test of the binary passed and some skipped, and nothing failed:
# "[  PASSED  ] 0 tests." then "[  SKIPPED ] N tests, listed below:" and the skipped tests' lines up to
# the end of the output (a failure would print its "[  FAILED  ]" list after them: no match, so it
# fails). ctest takes a match as skipped whatever the exit code, hence the anchor at the end.
set(SIEVE_SKIP_REGEX "\\[  PASSED  \\] 0 tests\\.\n\\[  SKIPPED \\] [0-9]+ tests?, listed below:\n(\\[  SKIPPED \\] [^\n]*\n)*(\n *YOU HAVE [0-9]+ DISABLED TESTS?\n\n)?$")

# sieve_skip_when_nothing_passed(<ctest test>): SIEVE_SKIP_REGEX on a GoogleTest ctest test.
function(sieve_skip_when_nothing_passed test)
  set_tests_properties(${test} PROPERTIES SKIP_REGULAR_EXPRESSION "${SIEVE_SKIP_REGEX}")
endfunction()

# sieve_add_bench(<name> SOURCES ... [LIBS ...])
# A Google Benchmark program, plus a short smoke run in ctest (label bench) so it keeps compiling
# and running.
function(sieve_add_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;SMOKE_ARGS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} benchmark::benchmark)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  sieve_set_warnings(${name})
  if(SIEVE_BUILD_TESTS)
    if(NOT ARG_SMOKE_ARGS)
      set(ARG_SMOKE_ARGS --benchmark_min_time=0.01)
    endif()
    add_test(NAME ${name}_smoke COMMAND ${name} ${ARG_SMOKE_ARGS})
    set_tests_properties(${name}_smoke PROPERTIES LABELS "bench" TIMEOUT 300
      ENVIRONMENT "SIEVE_BENCH_SMOKE=1")
  endif()
endfunction()

# sieve_add_fuzzer(<module> <name> LIBS ... [RUNS n])
# <module>/fuzz/<name>_fuzzer.cc defines LLVMFuzzerTestOneInput; its seeds are in
# <module>/fuzz/corpus/<name>/. With SIEVE_FUZZ (clang): the libFuzzer program
# <module>_<name>_fuzzer that scripts/fuzz/run.sh runs. Otherwise, with the tests: the same file
# linked to tests/fuzz/replay_main.cc as the ctest test <module>_<name>_fuzzer (label fuzz), which
# runs the seeds and RUNS (default 2000) deterministic mutations of them, under whatever
# sanitizers the build has (the asan preset: ASan + UBSan).
function(sieve_add_fuzzer module name)
  cmake_parse_arguments(ARG "" "RUNS" "LIBS" ${ARGN})
  if(NOT ARG_RUNS)
    set(ARG_RUNS 2000)
  endif()
  set(target ${module}_${name}_fuzzer)
  set(corpus ${PROJECT_SOURCE_DIR}/${module}/fuzz/corpus/${name})
  add_executable(${target} ${name}_fuzzer.cc)
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  sieve_set_warnings(${target})
  if(SIEVE_FUZZ)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  else()
    target_link_libraries(${target} PRIVATE sieve_fuzz_replay)
    add_test(NAME ${target}
      COMMAND ${target} --runs=${ARG_RUNS} --artifact=${CMAKE_CURRENT_BINARY_DIR}/${target}.last
              ${corpus})
    set_tests_properties(${target} PROPERTIES LABELS "fuzz;${module}" TIMEOUT 300)
  endif()
endfunction()

# sieve_fuzz_module(<library target>): the start of a module's fuzz/CMakeLists.txt. With
# SIEVE_FUZZ it checks for clang and gives the library libFuzzer's coverage instrumentation.
function(sieve_fuzz_module library)
  if(SIEVE_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "SIEVE_FUZZ needs clang: configure with CC=clang CXX=clang++")
    endif()
    target_compile_options(${library} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()
