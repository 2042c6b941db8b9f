# Source from the repo root on a lent CUDA machine (the `run` tool) before a benchmark:
#   export WEBARRAY_GIT_REVISION=<commit>; . benchmarks/device_env.sh
# Installs the carried wheels (.whl: wgpu and its needs) into /tmp/site, unpacks the carried
# Debian packages (.debs: the Vulkan loader, and glvnd's libraries, which NVIDIA's Vulkan
# driver libGLX_nvidia needs: `apt-get download libvulkan1 libglvnd0 libegl1 libgl1 libglx0
# libopengl0 libgles2`; with the loader and libglvnd0 alone the loader reported "Could not get
# 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'" and wgpu found no adapter) when the
# machine lacks them, and points the loader at NVIDIA's Vulkan
# driver, writing an ICD file for libGLX_nvidia when no ICD file is installed.
# The lent machine's copy of the checkout may carry a .git of another commit, so the commit
# measured must be named from here: WEBARRAY_GIT_REVISION=$(git rev-parse --short HEAD).
if [ -z "${WEBARRAY_GIT_REVISION:-}" ]; then
    echo "device_env: set WEBARRAY_GIT_REVISION=<this checkout's commit> in the run command" >&2
    return 1
fi
export XDG_RUNTIME_DIR=/tmp PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || return 1
export PYTHONPATH="/tmp/site:$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
if ! ldconfig -p | grep -q 'libvulkan\.so\.1' || ! ldconfig -p | grep -q 'libGLdispatch\.so\.0'; then
    mkdir -p /tmp/vk
    for f in .debs/*.deb; do dpkg-deb -x "$f" /tmp/vk; done
    export LD_LIBRARY_PATH="/tmp/vk/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
icd=""
for f in /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json \
         /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd*.json; do
    [ -f "$f" ] && { icd="$f"; break; }
done
if [ -z "$icd" ]; then
    lib=$(ldconfig -p | awk '/libGLX_nvidia\.so\.0/ {print $NF; exit}')
    [ -z "$lib" ] && lib=$(find / -xdev -name 'libGLX_nvidia.so.0' 2>/dev/null | head -n1)
    if [ -n "$lib" ]; then
        icd=/tmp/nvidia_icd.json
        printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3"}}\n' \
            "$lib" > "$icd"
    fi
fi
if [ -n "$icd" ]; then
    export VK_ICD_FILENAMES="$icd" VK_DRIVER_FILES="$icd"
fi
echo "device_env: icd=${icd:-none} LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
