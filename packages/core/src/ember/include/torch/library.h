// PyTorch compatibility name: resolves to ember's C++ extension API.
#pragma once
#include <ember/ext/library.h>
#include <ember/ext/compat.h>
