// Our stand-in for <torch/extension.h> (scripts/build-corpus.sh, SageAttention): the kernels use
// nothing of torch, only its headers' standard includes; the torch bindings are not compiled.
#pragma once
#include <cstdint>
#include <sstream>
#include <stdexcept>
