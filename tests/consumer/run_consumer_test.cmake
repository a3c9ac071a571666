# cmake -P script behind consumer_package_test: install, configure the consumer, build, run; the
# work directory (a full install, hundreds of MB under the sanitizers) is removed when all pass.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    # The install lists every file it copies; only the other lines say what went wrong.
    string(REGEX REPLACE "-- (Installing|Up-to-date): [^\n]*\n" "" out "${out}")
    message(FATAL_ERROR "consumer test: ${what} failed (${result}):\n${out}")
  endif()
  message(STATUS "consumer test: ${what}: ok")
endfunction()

run_step("install into ${prefix}" ${CMAKE_COMMAND} --install ${SIEVE_BUILD_DIR} --prefix ${prefix})
run_step("configure" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
  -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_PREFIX_PATH=${prefix}
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
run_step("build" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step("run" ${WORK_DIR}/build/consumer)
file(REMOVE_RECURSE ${WORK_DIR})
