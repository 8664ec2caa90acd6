#!/usr/bin/env bash
# Live GUI recording of a real CUDA program (tests/app/tst_livegpurecording).
# The GPU machine has no Qt, so this runs in two steps:
#   tests/gpu/run-gui.sh bundle DIR   on the Qt machine, after building build/: copies the
#                                     test, the injection library, the Qt libraries and the
#                                     offscreen platform plugin into DIR/gui-bundle.tar.xz
#   tests/gpu/run-gui.sh run DIR      on the GPU machine: compiles tests/gpu/steady.cu and
#                                     runs the test offscreen against the real GPU
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: run-gui.sh bundle|run DIR}
dir=${2:?usage: run-gui.sh bundle|run DIR}
case "$mode" in
bundle)
    stage=$(mktemp -d)
    mkdir -p "$stage/lib" "$stage/plugins/platforms"
    cp "$ROOT/build/tests/app/tst_livegpurecording" "$ROOT/build/collector/injection/libkinetoscope_injection.so" "$stage/"
    plugin=$(find /usr/lib -path '*qt6/plugins/platforms/libqoffscreen.so' | head -1)
    cp "$plugin" "$stage/plugins/platforms/"
    # Every shared library they need, but glibc and the C++ runtime (the GPU machine's are newer).
    for f in "$stage/tst_livegpurecording" "$plugin"; do
        ldd "$f" | awk '/=> \//{print $3}'
    done | sort -u | grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' \
        | xargs -I{} cp -L {} "$stage/lib/"
    mkdir -p "$dir"
    tar -C "$stage" -cJf "$dir/gui-bundle.tar.xz" .
    rm -rf "$stage"
    ls -la "$dir/gui-bundle.tar.xz"
    ;;
run)
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "SKIP: no NVIDIA GPU"
        exit 0
    fi
    work=$(mktemp -d)
    tar -C "$work" -xJf "$dir/gui-bundle.tar.xz"
    nvcc -O2 -o "$work/steady" "$ROOT/tests/gpu/steady.cu"
    export LD_LIBRARY_PATH="$work/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
    export QT_PLUGIN_PATH="$work/plugins" QT_QPA_PLATFORM=offscreen
    export KINETOSCOPE_INJECTION_LIBRARY="$work/libkinetoscope_injection.so" KS_GPU_TARGET="$work/steady"
    "$work/tst_livegpurecording"
    ;;
*)
    echo "usage: run-gui.sh bundle|run DIR" >&2
    exit 2
    ;;
esac
