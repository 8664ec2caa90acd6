# `cpack` (or packaging/make-deb.sh) turns the installation into kinetoscope_<version>_<arch>.deb.
# Dependencies come from the binaries (dpkg-shlibdeps), not from a hand-written list.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kinetoscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "Kinetoscope maintainers <maintainers@users.noreply.a-seed-138c9e8f.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "viewer for PyTorch profiler traces, with a CUPTI collector")
# CPack puts the summary above this as the synopsis line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Kinetoscope shows PyTorch profiler traces (*.pt.trace.json[.gz], Chrome Trace
Event JSON) on one timeline: CPU threads with their operator stacks, CUDA
streams, flow arrows from each launch to its kernel, and GPU utilization and
SM efficiency overlays, with operator and kernel tables and the step time
breakdown.
.
kinetoscope-cli prints the same tables and metrics, and its collect command
records a CUDA program with CUPTI (CUPTI comes from NVIDIA's CUDA toolkit).")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${KINETOSCOPE_HOMEPAGE})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Python module (python/) is for Debian's python3 and needs numpy; the viewer does not.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, python3-numpy")
# The injection library links NVIDIA's libcupti, which no Debian package provides (it comes with
# the CUDA toolkit and is loaded only into programs that already use CUDA). dpkg-shlibdeps gets
# CUPTI's directory as a private one, so that it resolves the library without adding a
# dependency: the package installs, and the viewer runs, on machines without CUDA; `collect`
# there reports what is missing.
if(KINETOSCOPE_HAVE_CUPTI)
  get_target_property(KS_CUPTI_LIBRARY CUDA::cupti LOCATION)
  get_filename_component(KS_CUPTI_DIR "${KS_CUPTI_LIBRARY}" DIRECTORY)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${KS_CUPTI_DIR})
endif()
include(CPack)

# Everything the package installs, so that make-deb.sh builds no tests or benchmarks
# (it configures with CMAKE_SKIP_INSTALL_ALL_DEPENDENCY).
add_custom_target(package_contents)
add_dependencies(package_contents kinetoscope-cli kinetoscope_docs)
foreach(target kinetoscope kinetoscope_injection kinetoscope_python)
  if(TARGET ${target})
    add_dependencies(package_contents ${target})
  endif()
endforeach()

# package_deb: cpack on this build tree, then the package's contents checked (about 20 s).
if(KINETOSCOPE_BUILD_GUI)
  add_test(NAME package_deb COMMAND ${PROJECT_SOURCE_DIR}/packaging/check-deb.sh ${PROJECT_BINARY_DIR} ${KINETOSCOPE_APP_ID})
  set_tests_properties(package_deb PROPERTIES TIMEOUT 180)
endif()
