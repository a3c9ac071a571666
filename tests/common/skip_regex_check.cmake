# Runs BINARY (skip_check_test.cc) under several filters and checks that REGEX
# (SIEVE_SKIP_REGEX) takes as skipped only the runs where nothing passed or
# failed and something skipped. cmake -P; CMake's MATCHES is the regex engine
# ctest's SKIP_REGULAR_EXPRESSION uses.
function(expect filter want_skip)
  execute_process(COMMAND ${BINARY} --gtest_filter=${filter}
    OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(out MATCHES "${REGEX}")
    set(skipped TRUE)
  else()
    set(skipped FALSE)
  endif()
  if(NOT skipped STREQUAL want_skip)
    message(FATAL_ERROR "--gtest_filter=${filter}: skipped=${skipped}, want ${want_skip}\n${out}")
  endif()
  message(STATUS "--gtest_filter=${filter}: skipped=${skipped}")
endfunction()

expect("SkipCheck.Skips" TRUE)
expect("SkipCheck.Skips*" TRUE)
expect("SkipCheck.Skips*:SkipCheck.Passes" FALSE)
expect("SkipCheck.Skips*:SkipCheck.Fails" FALSE)
expect("SkipCheck.Passes" FALSE)
expect("SkipCheck.Fails" FALSE)
expect("SkipCheck.Nothing" FALSE)
