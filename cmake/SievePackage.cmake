# Installs the libraries with a CMake package config, so another project can write
#   find_package(sieve CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE sieve::frontier)
include(CMakePackageConfigHelpers)
get_property(sieve_libraries GLOBAL PROPERTY SIEVE_LIBRARIES)
if(NOT sieve_libraries)
  return()  # No module library defined yet: nothing to export.
endif()
set(SIEVE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sieve)
install(EXPORT sieveTargets NAMESPACE sieve:: DESTINATION ${SIEVE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sieveConfig.cmake.in
  ${PROJECT_BINARY_DIR}/sieveConfig.cmake INSTALL_DESTINATION ${SIEVE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sieveConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sieveConfig.cmake ${PROJECT_BINARY_DIR}/sieveConfigVersion.cmake
  DESTINATION ${SIEVE_CMAKE_DIR})
