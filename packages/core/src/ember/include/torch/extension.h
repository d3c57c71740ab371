// PyTorch compatibility name: resolves to ember's C++ extension API.
#pragma once
#include <ember/extension.h>
