#!/usr/bin/env bash
# Install a C++ compiler and ninja, which build the course's C++ kernel (autograder/kernels/, notebook 16) with
# torch.utils.cpp_extension: idempotent, does nothing if c++ and ninja are there. Debian's packages, with apt-get.
set -euo pipefail

if command -v c++ >/dev/null && command -v ninja >/dev/null; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null; then
    SUDO=(sudo)
else
    echo "install-compiler: c++ or ninja is missing and this user cannot install packages; install g++ and" \
         "ninja-build, then run: python -m autograder.kernels" >&2
    exit 1
fi

echo "install-compiler: c++ or ninja is missing; installing g++ and ninja-build with apt-get" >&2
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ ninja-build >/dev/null

command -v c++ >/dev/null && command -v ninja >/dev/null \
    || { echo "install-compiler: apt-get finished but c++ or ninja is still missing" >&2; exit 1; }
