# tests/tests.cmake - test registration, included from the top CMakeLists
# (so this runs in the top directory scope: CMAKE_SOURCE_DIR is the repo).
#
#   tests/unit/test_<name>.c   cmocka executable, CTest name unit.<name>
#   tests/<dir>/run-<x>.sh     script test, CTest name <dir>.run-<x>, run as
#                              bash run-<x>.sh XLA_REPL CORPUS_DIR from its
#                              own directory
#   tests/bench/*.c            xr_bench (a benchmark, not a test: make bench)
#   tests/oom/failalloc.c      xr_oom_repl: xla-repl with allocations that
#                              fail on request (tests/oom/run-oom.sh)
#   tests/fuzz/fuzz_parser.c   libFuzzer harnesses (and fuzz_passes.c), with
#                              -DXR_FUZZ=ON and clang
#
# Exit code 77 means "skipped" for every test (no GPU, no corpus, ...).

get_filename_component(_xr_corpus "${CMAKE_SOURCE_DIR}/../shared/corpus/hlo"
                       ABSOLUTE)
set(XR_CORPUS_DIR "${_xr_corpus}" CACHE PATH
    "HLO conformance corpus passed to the script tests")

# Graphviz's own leaks (and its font libraries') are suppressed for LSan by
# tests/viz/lsan-graphviz.supp; ours are not.
# Sanitizer reports exit with 86 so that a test expecting exit 1 (a located
# error) cannot mistake an ASan/UBSan/LSan report for it. Harmless when the
# build is not sanitized.
set(XR_TEST_ENV
    "ASAN_OPTIONS=exitcode=86:abort_on_error=0:detect_leaks=1:strict_string_checks=1"
    "UBSAN_OPTIONS=exitcode=86:print_stacktrace=1:halt_on_error=1"
    "LSAN_OPTIONS=exitcode=86:print_suppressions=0:suppressions=${CMAKE_SOURCE_DIR}/tests/viz/lsan-graphviz.supp"
    "XR_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
    "XR_BUILD_DIR=${CMAKE_BINARY_DIR}"
    "XR_CORPUS_DIR=${XR_CORPUS_DIR}")

# --- cmocka unit tests ------------------------------------------------------
set(XR_CMOCKA_OK OFF)
if(PkgConfig_FOUND)
  pkg_check_modules(CMOCKA IMPORTED_TARGET cmocka)
endif()
if(CMOCKA_FOUND)
  add_library(xr_cmocka INTERFACE)
  target_link_libraries(xr_cmocka INTERFACE PkgConfig::CMOCKA)
  set(XR_CMOCKA_OK ON)
else()
  find_library(CMOCKA_LIBRARY cmocka)
  find_path(CMOCKA_INCLUDE_DIR cmocka.h)
  if(CMOCKA_LIBRARY AND CMOCKA_INCLUDE_DIR)
    add_library(xr_cmocka INTERFACE)
    target_include_directories(xr_cmocka INTERFACE ${CMOCKA_INCLUDE_DIR})
    target_link_libraries(xr_cmocka INTERFACE ${CMOCKA_LIBRARY})
    set(XR_CMOCKA_OK ON)
  endif()
endif()

file(GLOB XR_UNIT_TESTS CONFIGURE_DEPENDS
     "${CMAKE_SOURCE_DIR}/tests/unit/test_*.c")
if(XR_UNIT_TESTS AND NOT XR_CMOCKA_OK)
  message(STATUS "cmocka not found: unit tests skipped "
          "(install libcmocka-dev, or run scripts/install-deps.sh)")
elseif(XR_UNIT_TESTS)
  foreach(src IN LISTS XR_UNIT_TESTS)
    get_filename_component(exe "${src}" NAME_WE)  # test_parse
    string(REGEX REPLACE "^test_" "" name "${exe}") # parse
    add_executable(${exe} "${src}")
    set_target_properties(${exe} PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests/unit")
    target_compile_options(${exe} PRIVATE ${XR_WARNINGS})
    target_compile_definitions(${exe} PRIVATE
      XR_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
      XR_CORPUS_DIR="${XR_CORPUS_DIR}")
    # test_repl*.c may test the REPL layer; the rest see core/ only.
    if(name MATCHES "^repl")
      target_link_libraries(${exe} PRIVATE xr_repl)
    endif()
    # test_viz*.c test viz/ (DOT text, rendering, the report).
    if(name MATCHES "^viz")
      target_link_libraries(${exe} PRIVATE xr_viz)
    endif()
    target_link_libraries(${exe} PRIVATE xr_core xr_cmocka m)
    add_test(NAME unit.${name} COMMAND ${exe}
             WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}/tests/unit")
    set_tests_properties(unit.${name} PROPERTIES
      SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS unit
      ENVIRONMENT "${XR_TEST_ENV}")
  endforeach()
endif()

# --- script tests: tests/<dir>/run-*.sh ------------------------------------
file(GLOB XR_SCRIPT_TESTS CONFIGURE_DEPENDS
     "${CMAKE_SOURCE_DIR}/tests/*/run-*.sh")
foreach(script IN LISTS XR_SCRIPT_TESTS)
  get_filename_component(dir "${script}" DIRECTORY)
  get_filename_component(group "${dir}" NAME)
  get_filename_component(stem "${script}" NAME_WE)
  set(name "${group}.${stem}")
  add_test(NAME ${name}
           COMMAND bash "${script}" $<TARGET_FILE:xla-repl> "${XR_CORPUS_DIR}"
           WORKING_DIRECTORY "${dir}")
  set_tests_properties(${name} PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 1500 LABELS script
    ENVIRONMENT "${XR_TEST_ENV}")
endforeach()

# --- allocation failure injection: xla-repl whose own allocations can be
# made to fail (tests/oom/failalloc.c, XR_FAIL_ALLOC); run by
# tests/oom/run-oom.sh, which finds it in XR_BUILD_DIR --------------------
add_executable(xr_oom_repl repl/main.c tests/oom/failalloc.c)
target_compile_options(xr_oom_repl PRIVATE ${XR_WARNINGS})
target_link_libraries(xr_oom_repl PRIVATE xr_repl)
target_link_options(xr_oom_repl PRIVATE
  -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup)

# --- benchmark (make bench; not registered with CTest) ----------------------
file(GLOB XR_BENCH_SRC CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/tests/bench/*.c")
if(XR_BENCH_SRC)
  add_executable(xr_bench ${XR_BENCH_SRC})
  target_compile_options(xr_bench PRIVATE ${XR_WARNINGS})
  target_link_libraries(xr_bench PRIVATE xr_core m)
  target_link_options(xr_bench PRIVATE ${XR_LTO_FLAGS})
endif()

# --- libFuzzer harness (-DXR_FUZZ=ON -DCMAKE_C_COMPILER=clang) -------------
if(XR_FUZZ)
  set(XR_HAVE_LIBFUZZER 0 CACHE INTERNAL "")
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(WARNING "XR_FUZZ needs clang (-DCMAKE_C_COMPILER=clang); "
            "fuzz_parser not built")
  else()
    include(CheckCSourceCompiles)
    set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
    set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer")
    check_c_source_compiles([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{ (void)p; (void)n; return 0; }
]] XR_LIBFUZZER_LINKS)
    unset(CMAKE_REQUIRED_FLAGS)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if(NOT XR_LIBFUZZER_LINKS)
      message(WARNING "clang cannot link -fsanitize=fuzzer (install "
              "libclang-rt-14-dev); fuzz_parser not built")
    else()
      set(XR_HAVE_LIBFUZZER 1 CACHE INTERNAL "")
      set(XR_FUZZ_FLAGS -fsanitize=address,undefined
          -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g)
      # A separately instrumented copy of core/ so that the rest of the
      # build (xr_core, xla-repl) stays as configured.
      add_library(xr_core_fuzz STATIC ${XR_CORE_SRC})
      target_include_directories(xr_core_fuzz PUBLIC "${CMAKE_SOURCE_DIR}/core")
      target_compile_options(xr_core_fuzz PRIVATE ${XR_WARNINGS}
        -fsanitize=fuzzer-no-link ${XR_FUZZ_FLAGS})
      target_link_libraries(xr_core_fuzz PUBLIC m)
      add_executable(fuzz_parser "${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_parser.c")
      target_compile_options(fuzz_parser PRIVATE ${XR_WARNINGS}
        -fsanitize=fuzzer ${XR_FUZZ_FLAGS})
      target_link_options(fuzz_parser PRIVATE -fsanitize=fuzzer ${XR_FUZZ_FLAGS})
      target_link_libraries(fuzz_parser PRIVATE xr_core_fuzz)
      # The passes on whatever parses and verifies (tests/fuzz/fuzz_passes.c).
      add_executable(fuzz_passes "${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_passes.c")
      target_compile_options(fuzz_passes PRIVATE ${XR_WARNINGS}
        -fsanitize=fuzzer ${XR_FUZZ_FLAGS})
      target_link_options(fuzz_passes PRIVATE -fsanitize=fuzzer ${XR_FUZZ_FLAGS})
      target_link_libraries(fuzz_passes PRIVATE xr_core_fuzz)
    endif()
  endif()
endif()
