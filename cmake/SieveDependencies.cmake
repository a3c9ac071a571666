# Every dependency comes from a Debian package, found by its CMake config or by pkg-config.
# scripts/install-deps.sh installs exactly these.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(absl CONFIG REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)
pkg_check_modules(CARES REQUIRED IMPORTED_TARGET libcares)  # fetch/dns_cache.h
pkg_check_modules(GUMBO REQUIRED IMPORTED_TARGET gumbo)
find_package(RocksDB CONFIG REQUIRED)
# The Python module (SIEVE_PYTHON) is a shared object, and Debian's librocksdb.a is not
# position-independent: builds with the module link librocksdb.so; the sanitizer presets (module
# off) keep the static library. Every target of one build links the same one (frontier/,
# frontier/service/), never both.
if(SIEVE_PYTHON)
  set(SIEVE_ROCKSDB RocksDB::rocksdb-shared)
else()
  set(SIEVE_ROCKSDB RocksDB::rocksdb)
endif()
find_package(tomlplusplus CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(PSL REQUIRED IMPORTED_TARGET libpsl)
pkg_check_modules(IDN2 REQUIRED IMPORTED_TARGET libidn2)
# Sitemaps are parsed by streaming with expat; gzip (sitemaps, WARC members, content decoding) is zlib.
pkg_check_modules(EXPAT REQUIRED IMPORTED_TARGET expat)
find_package(ZLIB REQUIRED)
# SHA-1 for WARC digests; libssl to ask libcurl's connections whether TLS resumed a session.
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)
# cpp-httplib serves the built-in demo site (`sieve crawl --demo`) and the tests' loopback sites.
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
# hiredis talks to Redis for the frontier shared by many workers (sieve::cluster).
pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis)
# gRPC and protobuf serve the URLFrontier API (`sieve frontier serve`, sieve::frontier_service);
# protoc and grpc_cpp_plugin generate its code into the build directory at build time.
pkg_check_modules(GRPCPP REQUIRED IMPORTED_TARGET grpc++)
pkg_check_modules(PROTOBUF REQUIRED IMPORTED_TARGET protobuf)
find_program(SIEVE_PROTOC protoc REQUIRED)
find_program(SIEVE_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
# The Python client test generates its stubs with Debian's plugin; optional (the test is skipped).
find_program(SIEVE_GRPC_PYTHON_PLUGIN grpc_python_plugin)
if(SIEVE_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()
if(SIEVE_BUILD_BENCH)
  find_package(benchmark CONFIG REQUIRED)
endif()
