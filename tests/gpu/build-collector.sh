# Sourced by the GPU test scripts: build_collector LOGDIR configures $BUILD from $ROOT without
# the GUI and builds the CLI and the injection library, then the PyTorch observer where CMake
# found torch (collect's default operator source; else operators come from emit_nvtx). Logs go
# to LOGDIR; `say` (the caller's) reports. Returns 1 when the CLI or the injection fails to build.
build_collector() {
    local logs=$1 generator=()
    command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
    if ! cmake "${generator[@]}" -S "$ROOT" -B "$BUILD" -DKINETOSCOPE_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            > "$logs/cmake.log" 2>&1 \
        || ! cmake --build "$BUILD" -j "$(nproc)" --target kinetoscope-cli kinetoscope_injection > "$logs/build.log" 2>&1; then
        say "FAIL: build (see cmake.log, build.log)"
        tail -n 30 "$logs/build.log" "$logs/cmake.log" 2>/dev/null
        return 1
    fi
    if cmake --build "$BUILD" -j "$(nproc)" --target kinetoscope_torch_observer > "$logs/observer.log" 2>&1; then
        say "operators: the PyTorch observer"
    else
        say "operators: emit_nvtx (no PyTorch observer built: observer.log)"
        tail -n 15 "$logs/observer.log"
    fi
}
